"""Write the Foundry module bundled, as the release zip holds it, into a folder:

    python tools/bundle.py --out build/module-bundle           # the whole module, bundled (Foundry installs it)
    python tools/bundle.py --out build/prebuilt --bundle-only  # the bundle's three files alone

The bundle (one minified ES module with its source map, one stylesheet) is built by esbuild, pinned in
package.json, from the module's files as they are now; ``sidecar.server.module`` says how.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sidecar.server.module import CHECKOUT_DIR, BundleError, bundle, bundled_tree  # noqa: E402


def write(out: Path, bundle_only: bool = False) -> list[Path]:
    """Empty ``out`` and write the bundled module (or the bundle's files alone) into it."""
    files = sorted(bundle(CHECKOUT_DIR).items()) if bundle_only else list(bundled_tree(CHECKOUT_DIR))
    if out.exists():
        shutil.rmtree(out)
    written = []
    for name, body in files:
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bundle", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", required=True, help="the folder to write (emptied first)")
    parser.add_argument("--bundle-only", action="store_true", help="only the bundle's files, not the whole module")
    args = parser.parse_args(argv)
    try:
        written = write(Path(args.out), args.bundle_only)
    except BundleError as exc:
        sys.stderr.write(f"bundle: {exc}\n")
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
