"""Take the docs site's screenshots: one PNG per view, in docs/img/<view>.png.

Serves the app with uvicorn (in this process, on a free port and a temporary store), opens each
view in Debian's chromium through Playwright at a 1280x800 viewport (two browsers at once, each
view in a fresh context), waits for the page to settle, and saves what the viewport shows (not
the whole page). A view that fails or times out is skipped with a warning and keeps its old
picture; the others are still taken. Run it with `make docs-screenshots` after a view changes;
the PNGs are committed and CI never runs this script.

Each picture's entry in docs/img/manifest.json records what it shows: its URL, and the sha256 of
every template the server rendered for it and every static file the browser fetched while it was
taken. `tests/test_docs_screenshots.py` recomputes them and fails, naming the picture and this
command, when one is older than the files it shows.

    python docs/screenshots.py                 # every view
    python docs/screenshots.py compare chat    # only these
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
MANIFEST = OUT / "manifest.json"
RETAKE = "make docs-screenshots"  # or: .venv/bin/python docs/screenshots.py NAME...
SHOT_HEADER = "X-Screenshot"  # the picture a request is for (the app ignores it)
SHOOTERS = 2  # browsers taking pictures at once: the waits for a quiet network overlap
CHROMIUM = os.environ.get("TOKVIS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1280, "height": 800}
TIMEOUT_MS = 180_000  # a first visit can take a minute on a busy machine
JOB_CEILING = 900  # seconds a started job may take (the mix: ~20 s idle, 5 min at load 16)

TEXT = "The tokenization handles preprocessing of naïve cafés: 12345 tokens!"

# (file name, path and query[, what to do first]); the order is the site's. A step view is
# scrolled to its step controls, so that the state it draws fills the picture; a view that runs a
# job has its button pressed and waits for the chart; a job that takes long is started ("start")
# before the first picture, and its view taken last.
STEP = {"scroll": "text=« reset"}
# a class made (POST /api/classes) and answered before its pictures: its path's {code} and
# {teacher_key} are the class's (the manifest records the path as written here)
CLASS = {"class": {"title": "BPE week 2", "checkpoints": [1, 2, 3, 4]}}
VIEWS = [
    ("visualiser", "/?" + urlencode({"tokenizer": "cl100k_base", "text": TEXT})),
    ("bpe_train", "/bpe/train?step=12", STEP),
    (
        "bpe_encode",
        "/bpe/encode?"
        + urlencode({"tokenizer": "gpt2", "text": "lowest newer tokenization works", "step": 3}),
        STEP,
    ),
    ("wordpiece_train", "/wordpiece/train?vocab_size=40&step=5", STEP),
    (
        "wordpiece_encode",
        "/wordpiece/encode?vocab=bert-base-uncased&text=unaffable+playing&step=4",
        STEP,
    ),
    ("unigram_lattice", "/unigram/lattice?text=cats&step=3", STEP),
    ("unigram_train", "/unigram/train?step=2", STEP),
    (
        "bpe_superbpe",
        "/bpe/train?variant=superbpe&corpus=udhr/eng&vocab_size=700&transition=600&step=420",
        STEP,
    ),
    (
        "bpe_picky",
        "/bpe/train?variant=picky_bpe&corpus=udhr/eng&vocab_size=600&threshold=0.6&step=300",
        STEP,
    ),
    ("bpe_parity", "/bpe/train?variant=parity_bpe&corpus=udhr/all&vocab_size=600&step=120", STEP),
    ("practice", "/bpe/train?practice=1&step=4", {"scroll": "text=Train step by step"}),
    (
        "compare",
        "/compare?"
        + urlencode(
            {"text": TEXT, "col": ["cl100k_base", "o200k_base", "bert-base-uncased"]}, doseq=True
        ),
    ),
    (
        "sweep",
        "/sweep?corpus=udhr/eng&heldout=udhr/fra&algo=bpe&algo=unigram&sizes=100,200,400",
        {"click": "text=Run sweep", "wait": "main svg", "gone": "[data-testid=sweep-progress]"},
    ),
    ("tax", "/tax?tok=cl100k_base&tok=o200k_base"),
    ("unicode", "/unicode?text=caf%C3%A9%20%EF%AC%81nance&tok=cl100k_base&tok=r50k_base"),
    ("corpora", "/corpora"),
    ("tokenizers", "/tokenizers"),
    ("chat", "/chat"),
    ("diff", "/diff?" + urlencode({"a": "cl100k_base", "b": "o200k_base"})),
    ("drift", "/drift"),
    ("parity", "/parity"),
    ("vocab", "/vocab?tokenizer=cl100k_base"),
    (
        "tokenizations",
        "/tokenizations?" + urlencode({"tokenizer": "cl100k_base", "ids": "359 65767 2065"}),
    ),
    ("vocab_diff", "/vocab/diff?" + urlencode({"a": "cl100k_base", "b": "o200k_base"})),
    (
        "audit",
        "/audit?tokenizer=bert-base-uncased",
        {
            "start": "/api/audit?tokenizer=bert-base-uncased&limit=1",
            "gone": "[data-testid=audit-progress]",
        },
    ),
    (
        "audit_mix",
        "/audit/mix?tokenizer=r50k_base",
        {"start": "/api/audit/mix?tokenizer=r50k_base", "wait": "main svg"},
    ),
    ("audit_numbers", "/audit/numbers?tokenizer=r50k_base"),
    ("check", "/check"),
    ("lessons", "/lessons"),
    ("worksheet", "/worksheet/bpe?start=1&end=2"),
    ("class_new", "/class/new"),
    ("class", "/class/{code}?student=Ana", CLASS),
    ("class_results", "/class/{code}/results?key={teacher_key}", CLASS),
    ("api", "/docs"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- what a picture shows, and whether it is older than that ---------------------------------
def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def digests(files: set[str], root: Path = ROOT) -> dict[str, str]:
    """{path relative to the checkout: its sha256}, sorted, of the files that exist."""
    return {f: sha256(root / f) for f in sorted(files) if (root / f).is_file()}


def stale(manifest: dict[str, Any], root: Path = ROOT) -> dict[str, list[str]]:
    """{picture: the files it shows that changed (or are gone) since it was taken}.

    >>> stale({"pictures": {}})
    {}
    """
    out: dict[str, list[str]] = {}
    for picture, entry in manifest["pictures"].items():
        changed = [
            f
            for f, digest in entry["shows"].items()
            if not (root / f).is_file() or sha256(root / f) != digest
        ]
        if changed:
            out[picture] = changed
    return out


def read_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"pictures": {}}


def write_manifest(manifest: dict[str, Any], path: Path = MANIFEST) -> None:
    manifest["retake"] = RETAKE
    manifest["pictures"] = dict(sorted(manifest["pictures"].items()))
    path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


class Rendered:
    """The templates the app renders, by picture: the Jinja loader is asked for each one on every
    render (the template cache is off), so an include or a macro import counts too, and the
    request that asked names its picture in the X-Screenshot header (the shooters run at once)."""

    def __init__(self) -> None:
        from app.jobs import current_request
        from app.render import TEMPLATES_DIR, env

        self.by_shot: dict[str, set[str]] = {}
        self.lock = threading.Lock()
        self.prefix = TEMPLATES_DIR.relative_to(ROOT).as_posix()
        env.cache = None
        loader = env.loader

        def get_source(environment, template):
            request = current_request.get(None)
            shot = request.headers.get(SHOT_HEADER) if request is not None else None
            if shot:
                with self.lock:
                    self.by_shot.setdefault(shot, set()).add(template)
            return type(loader).get_source(loader, environment, template)

        loader.get_source = get_source  # type: ignore[method-assign]

    def take(self, shot: str) -> set[str]:
        with self.lock:
            names = self.by_shot.pop(shot, set())
        return {f"{self.prefix}/{name}" for name in names}


def start_server(store: Path) -> tuple[Any, threading.Thread, str]:
    """uvicorn serving the app on a free port, with its own store, in a thread of this process
    (so the templates it renders are seen); waits until it answers."""
    import uvicorn

    os.environ.update(TOKVIS_DB=str(store), TOKVIS_ALLOWED_HOSTS="127.0.0.1")
    os.environ.pop("TOKVIS_DATABASE_URL", None)
    from app.main import create_app

    port = free_port()
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.1)
    return server, thread, f"http://127.0.0.1:{port}"


def shoot(page, url: str, target: Path, todo: dict[str, str]) -> None:
    """Open `url`, do what `todo` says (click, wait for a selector to come or to go, scroll to
    one), wait until the network and the layout are quiet, save the viewport."""
    page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
    page.wait_for_load_state("networkidle", timeout=TIMEOUT_MS)
    if "click" in todo:
        page.locator(todo["click"]).first.click()
    if "wait" in todo:
        page.locator(todo["wait"]).first.wait_for(timeout=TIMEOUT_MS)
    if "gone" in todo:  # a job's progress bar, gone when it is done
        page.locator(todo["gone"]).first.wait_for(state="detached", timeout=TIMEOUT_MS)
    if "scroll" in todo:
        page.locator(todo["scroll"]).first.evaluate(
            "e => { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -16); }"
        )
    page.wait_for_load_state("networkidle", timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)  # htmx swaps and fonts
    page.screenshot(path=str(target), full_page=False)


def static_file(url: str, base: str) -> str | None:
    """The checkout's path of a /static/ URL the page fetched from this server, else None."""
    from app.render import STATIC_DIR

    if not url.startswith(base):
        return None
    path = urlsplit(url).path
    if not path.startswith("/static/"):
        return None
    return f"{STATIC_DIR.relative_to(ROOT).as_posix()}/{path[len('/static/') :]}"


def take(browser, base: str, rendered: Rendered, name: str, path: str, todo: dict) -> dict:
    """One picture in a fresh context (nothing cached: every static file it uses is fetched);
    its manifest entry."""
    context = browser.new_context(
        viewport=VIEWPORT, color_scheme="light", extra_http_headers={SHOT_HEADER: name}
    )
    fetched: set[str] = set()
    context.on("request", lambda r: fetched.add(f) if (f := static_file(r.url, base)) else None)
    url = path.format(**make_class(base, todo["class"])) if "class" in todo else path
    try:
        shoot(context.new_page(), base + url, OUT / f"{name}.png", todo)
    finally:
        context.close()
    return {"url": path, "shows": digests(rendered.take(name) | fetched)}


def shooter(views: queue.Queue, base: str, rendered: Rendered, done: dict, failed: list) -> None:
    """One browser, taking pictures from `views` until it is empty (Playwright's sync API is
    one instance per thread)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        while True:
            try:
                name, path, todo = views.get_nowait()
            except queue.Empty:
                break
            start = time.monotonic()
            try:
                if "start" in todo:
                    wait_for_job(base + todo["start"])
                done[f"{name}.png"] = take(browser, base, rendered, name, path, todo)
            except Exception as exc:  # one slow view must not lose the others
                print(f"warning: {name} skipped ({path}): {exc}".splitlines()[0], file=sys.stderr)
                failed.append(name)
                continue
            size = (OUT / f"{name}.png").stat().st_size // 1024
            print(f"{name:18} {time.monotonic() - start:5.1f} s  {size:4} KB  {path}", flush=True)
        browser.close()


def make_class(base: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A BPE class on the textbook corpus, answered by two students (Ana: checkpoints 1 and 2
    right, 3 wrong; Bo: 1 wrong, 2 right); what POST /api/classes answered."""
    import urllib.request

    import tokenizers_core as tc
    from tokenizers_core.corpora import SENNRICH

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())

    body = {"algorithm": "bpe", "corpus_text": SENNRICH, "vocab_size": 30, **spec}
    made = post("/api/classes", body)
    merges = tc.train("bpe", SENNRICH.splitlines(), 30).model.merges
    for student, k, right in (
        ("Ana", 1, 1),
        ("Ana", 2, 1),
        ("Ana", 3, 0),
        ("Bo", 1, 0),
        ("Bo", 2, 1),
    ):
        given = merges[k - 1] if right else merges[k]
        post(
            f"/api/classes/{made['code']}/answers",
            {"student": student, "checkpoint": k, "answer": list(given)},
        )
    return made


def wait_for_job(url: str, ceiling: float = JOB_CEILING) -> None:
    """Ask `url` until the job it names is done (200; 202 while it runs)."""
    import urllib.request

    deadline = time.monotonic() + ceiling
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url, timeout=60) as answer:
            if answer.status == 200:
                return
        time.sleep(1)
    raise TimeoutError(f"{url} still running after {ceiling:.0f} s")


def start_jobs(base: str, views: list[tuple[str, str, dict]]) -> None:
    """Ask for the long jobs' results first (`todo["start"]`), so that they run while the other
    pictures are taken."""
    import urllib.request

    for _name, _path, todo in views:
        if "start" in todo:
            try:
                urllib.request.urlopen(base + todo["start"], timeout=60).read()
            except OSError as exc:
                print(f"warning: could not start {todo['start']}: {exc}", file=sys.stderr)


def main(only: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    unknown = set(only) - {v[0] for v in VIEWS}
    if unknown:
        print(f"no such view: {' '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    views = [(v[0], v[1], v[2] if len(v) > 2 else {}) for v in VIEWS if not only or v[0] in only]
    todo: queue.Queue = queue.Queue()
    for view in sorted(views, key=lambda v: "start" in v[2]):  # the started jobs' views last
        todo.put(view)
    done: dict[str, dict] = {}
    failed: list[str] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        server, thread, base = start_server(Path(tmp) / "store.sqlite3")
        rendered = Rendered()
        try:
            start_jobs(base, views)
            shooters = [
                threading.Thread(target=shooter, args=(todo, base, rendered, done, failed))
                for _ in range(min(SHOOTERS, len(views)))
            ]
            for t in shooters:
                t.start()
            for t in shooters:
                t.join()
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    manifest = read_manifest()
    manifest["pictures"].update(done)
    write_manifest(manifest)
    print(f"{len(done)} pictures in {time.monotonic() - began:.0f} s; {MANIFEST.relative_to(ROOT)}")
    if failed:
        print(f"{len(failed)} skipped: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
