"""Install the system packages gc-bridge needs, or say exactly how.

Chromium (Playwright drives it; Playwright cannot download browsers everywhere),
for the desktop demo Xvfb, xauth and Qt's xcb libraries, WebKitGTK for the
harness's second engine, Maven and a JDK for the kits' check (Maven fetches the Kotlin
compiler and the Android classes from Maven Central), PostgreSQL and
Redis for the shared delivery log's tests. Runs apt-get only
where the machine is Debian and we are root; anywhere else prints the step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CHROMIUM = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome")
# package -> a file whose presence says it is installed
DEBIAN = {
    "chromium": "/usr/lib/chromium/chromium",
    # what Playwright launches headless (the harness, the headless demo); ~40% less CPU
    "chromium-headless-shell": "/usr/lib/chromium/chromium-headless-shell",
    "xvfb": "/usr/bin/Xvfb",
    "xauth": "/usr/bin/xauth",
    "libxcb-icccm4": "/usr/lib/x86_64-linux-gnu/libxcb-icccm.so.4",
    "libxcb-keysyms1": "/usr/lib/x86_64-linux-gnu/libxcb-keysyms.so.1",
    # Qt WebEngine's runtime needs these on a bare Debian
    "libnss3": "/usr/lib/x86_64-linux-gnu/libnss3.so",
    "libxkbcommon-x11-0": "/usr/lib/x86_64-linux-gnu/libxkbcommon-x11.so.0",
    "libegl1": "/usr/lib/x86_64-linux-gnu/libEGL.so.1",
    "libxcb-cursor0": "/usr/lib/x86_64-linux-gnu/libxcb-cursor.so.0",
    # WebKit, the engine family of iOS, for the harness (WebKitGTK through PyGObject;
    # the -dev packages and gcc build pygobject into the venv)
    "gir1.2-webkit2-4.1": "/usr/lib/x86_64-linux-gnu/girepository-1.0/WebKit2-4.1.typelib",
    "libgirepository1.0-dev": "/usr/lib/x86_64-linux-gnu/pkgconfig/gobject-introspection-1.0.pc",
    "libcairo2-dev": "/usr/lib/x86_64-linux-gnu/pkgconfig/cairo.pc",
    "pkg-config": "/usr/bin/pkg-config",
    "gcc": "/usr/bin/gcc",
    # the React Native kit's tsc and coordinator run on Node (make kits-check)
    "nodejs": "/usr/bin/node",
    "npm": "/usr/bin/npm",
    # make kits-check compiles the Android kit with Kotlin from Maven Central (fetched by mvn)
    # against android-all, on a JDK
    "maven": "/usr/bin/mvn",
    "openjdk-17-jdk-headless": "/usr/lib/jvm/java-17-openjdk-amd64/bin/javac",
    # throwaway servers for the receiver SDK's shared delivery log tests
    "postgresql": "/usr/lib/postgresql/15/bin/initdb",
    "redis-server": "/usr/bin/redis-server",
}


def have_chromium() -> bool:
    if os.environ.get("GC_BROWSER"):
        return True
    return any(shutil.which(c) or os.access(c, os.X_OK) for c in CHROMIUM)


def _installed(path: str) -> bool:
    if Path(path).exists():
        return True
    # other architectures keep libs elsewhere
    name = Path(path).name
    return any(Path(d, name).exists() for d in ("/usr/lib", "/usr/lib/aarch64-linux-gnu", "/lib/x86_64-linux-gnu"))


def main() -> int:
    missing = [pkg for pkg, path in DEBIAN.items() if not _installed(path)]
    if "chromium" in missing and have_chromium():
        missing.remove("chromium")
    if "chromium-headless-shell" in missing and os.environ.get("GC_BROWSER"):
        missing.remove("chromium-headless-shell")  # the browser named is the one used
    if not missing:
        print("==> system packages: all present")
        return 0
    debian = Path("/etc/debian_version").exists()
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if debian and root and shutil.which("apt-get"):
        print(f"==> apt-get install {' '.join(missing)}", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], check=True, env=env)
        return 0
    print("==> some system packages are missing: " + ", ".join(missing))
    if debian:
        print("    install them with: sudo apt-get install -y " + " ".join(missing))
    else:
        print("    install a browser with: python -m playwright install --with-deps chromium")
        print("    (the desktop demo also needs an X server or a display; see README)")
    # Not fatal: tests that need a browser or a display skip with the same hint.
    return 0


if __name__ == "__main__":
    sys.exit(main())
