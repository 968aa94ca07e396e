"""The tests of the web pages, a file per router of app/routers/ (`test_<router>.py`, and
`test_<router>_<aspect>.py` for an aspect of a page too large to share its file): a page's tests,
and their overlap, are found in one place."""
