"""The step views' state: one module per step-through page.

Each module builds its page's state ONCE from a session (or a trace) and a step index, as a
frozen dataclass: the rows, the sentence, the code panel (`code_panel(state)`: the source of
the `tokenizers_core.textbook` module that yields the view's steps, lit on the line its
`line_of` gives for the step), the practice question and the worksheet rows. `form()` and
`page()` build a page's context, so a handler reads parse -> build -> render. The page
(`app/routers/`), the lessons (`app/lessons.py`), the practice mode and the worksheets all render
from the state, so the prose of a step is written once, here. `answers` holds the views' JSON
answers, which the step routers and the downloads share. Nothing here imports a router.
"""
