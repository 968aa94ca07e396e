"""The docs' pictures are of the app as it is: docs/img/manifest.json records, for each picture,
the URL it was taken at and the sha256 of every template and static file it shows at the time
(docs/screenshots.py writes it as it takes them). A picture older than one of those files fails
here, named with the command that takes it again (issue 38, item 9: the README's picture showed a
flat bar of 14 links long after the navigation became five menus).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMG = ROOT / "docs" / "img"


def screenshots():
    """docs/screenshots.py as a module (it is a script, not a package; it imports playwright
    and the app only when it runs)."""
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "docs" / "screenshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHOTS = screenshots()
MANIFEST = SHOTS.read_manifest()


def test_no_picture_is_older_than_the_views_it_shows():
    old = SHOTS.stale(MANIFEST)
    assert not old, "\n".join(
        f"docs/img/{picture} is older than {', '.join(files)}: take it again with "
        f"`{SHOTS.RETAKE}` (or `.venv/bin/python docs/screenshots.py {picture[:-4]}`)"
        for picture, files in sorted(old.items())
    )


def test_every_picture_is_one_the_script_takes_at_the_url_it_was_taken_at():
    taken = {f"{name}.png": path for name, path, *_ in SHOTS.VIEWS}
    recorded = {picture: entry["url"] for picture, entry in MANIFEST["pictures"].items()}
    on_disk = {p.name for p in IMG.glob("*.png")}
    assert on_disk == set(taken), "docs/img and docs/screenshots.py's VIEWS name other pictures"
    changed = sorted(p for p in taken if recorded.get(p) != taken[p])
    assert not changed, (
        f"not taken, or taken at another URL than docs/screenshots.py names: {changed}; "
        f"take them with `{SHOTS.RETAKE}`"
    )
    for picture, entry in MANIFEST["pictures"].items():
        assert any(f.startswith("templates/") for f in entry["shows"]), picture
        assert any(f.startswith("static/") for f in entry["shows"]), picture


def test_a_changed_template_makes_the_pictures_that_show_it_stale(tmp_path):
    """The check itself, on a copy: a template one picture shows changes; that picture, and only
    the pictures that show it, are named."""
    # the manifest as if every picture had just been taken from the files as they are
    fresh = {
        "pictures": {
            picture: {"url": entry["url"], "shows": SHOTS.digests(set(entry["shows"]))}
            for picture, entry in MANIFEST["pictures"].items()
        }
    }
    shown = fresh["pictures"]["visualiser.png"]["shows"]
    template = next(f for f in shown if f.startswith("templates/") and "visualiser" in f)
    for f in {f for entry in fresh["pictures"].values() for f in entry["shows"]}:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / f, tmp_path / f)
    assert SHOTS.stale(fresh, tmp_path) == {}
    (tmp_path / template).write_text("{# changed #}\n", encoding="utf-8")
    old = SHOTS.stale(fresh, tmp_path)
    assert old["visualiser.png"] == [template]
    assert set(old) == {p for p, e in fresh["pictures"].items() if template in e["shows"]}
    (tmp_path / template).unlink()
    assert SHOTS.stale(json.loads(json.dumps(fresh)), tmp_path)["visualiser.png"] == [template]
