"""The tests of the web pages, a file per router of app/routers/ (`test_<router>.py`): a page's
tests, and their overlap, are found in one place."""
