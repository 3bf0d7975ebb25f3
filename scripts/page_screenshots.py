"""Take the screenshots of the HTML page shown in docs/render.md.

    python scripts/page_screenshots.py [OUT_DIR]

Renders the answer of ``tests/page_cases.py`` with ``grounding-protos render --style
html`` and photographs it in headless Chromium at 1200 and 400 px wide, light and
dark (``--blink-settings=preferredColorScheme=0`` is "dark"), into ``docs/images/``
(or OUT_DIR). Needs Chromium on PATH; the page loads nothing from the network.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOTS = {  # name: (width, height, color scheme)
    "page-1200-light.png": (1200, 1000, "1"),
    "page-1200-dark.png": (1200, 1000, "0"),
    "page-400-light.png": (400, 1500, "1"),
    "page-400-dark.png": (400, 1500, "0"),
}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from grounding_protos.cli import main as cli
    from tests.page_cases import page_document

    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if browser is None:
        print("no chromium on PATH", file=sys.stderr)
        return 2
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "answer.json"
        source.write_text(json.dumps(page_document(), ensure_ascii=False), encoding="utf-8")
        page = Path(scratch) / "page.html"
        title = "Elbphilharmonie"
        if cli(["render", "--style", "html", "--title", title, str(source), "-o", str(page)]):
            return 1
        for name, (width, height, scheme) in SHOTS.items():
            subprocess.run(
                [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 f"--user-data-dir={scratch}/profile", f"--window-size={width},{height}",
                 f"--blink-settings=preferredColorScheme={scheme}",
                 f"--screenshot={out / name}", page.as_uri()],
                check=True, capture_output=True, timeout=120,
            )  # fmt: skip
            print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
