"""What the routers share, so that no router imports another: each module here takes the
app's state (`app.state.AppState`: its store, settings and caches), calls the core, and returns
values that a route renders or answers as JSON. No HTML, no responses, no HTTP: bad input is
the core's InvalidInput or NotFound, a limit `errors.TooLarge`, and `app.errors.ERRORS` says
which status each is answered with.

- `tokenizers`: resolving a tokeniser by name, the pickers' options, the text limits

- `corpora`: storing a pasted or uploaded corpus (the one copy), the training views' default
  corpora, reading an uploaded text file
- `visualiser`: the visualiser's result (tokens, trace, counts), the links from a token to the
  step-through view of its model
- `compare`: the compare view's columns (trained or bundled), with metrics and disagreements
- `analytics`: the multilingual tax, the Unicode lab and the vocab-size sweep
- `check`: a student's output against the reference, and the page's worked examples
- `vocab_browser`: one page of a tokeniser's vocabulary
- `downloads`: file names, JSON Lines and CSV bodies, vocabulary rows

Which formats a tokeniser downloads as is `app.export`; jobs and caches are `app.jobs`.
"""
