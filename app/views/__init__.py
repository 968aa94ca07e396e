"""The step views' state: one module per step-through page.

Each module builds its page's state ONCE from a session (or a trace) and a step index, as a
frozen dataclass: the rows, the sentence, what the code panel highlights (`code_panel(state) ->
(lines, line)`), the practice question and the worksheet rows. The page (`app/routers/`), the
lessons (`app/lessons.py`), the practice mode and the worksheets all render from it, so the
prose of a step is written once, here. Nothing here imports a router.
"""
