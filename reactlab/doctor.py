"""What works on this machine: Python, widgets, the sandbox, a model for live runs.

    python -m reactlab.doctor            # or: python -m reactlab doctor
    python -m reactlab.doctor --lang ru  # the report in Russian

Each check says what it found and, where something is missing, the one command that fixes it on
this kind of machine, or what to expect where nothing can be fixed (bash is then replayed from the
cassettes, never run on the host).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from .browser import IN_BROWSER
from .model.unix_socket import SCHEME
from .sandbox import BWRAP, available
from .strings import LANGUAGES, Language, check_language, strings

__all__ = [
    "Check",
    "Machine",
    "Status",
    "check_all",
    "container_engine",
    "main",
    "report",
    "sandbox_advice",
    "sandbox_problem",
]

Status = Literal["ok", "limited", "failed"]


@dataclass(frozen=True)
class Check:
    """One line of the report. ``name`` says which check it is ("sandbox"), in any language; ``label``
    is that name in the report's language."""

    name: str
    status: Status
    detail: str
    fix: str = ""
    label: str = ""


@dataclass(frozen=True)
class Machine:
    """The facts about a host that decide whether Bubblewrap can work here, and how to make it."""

    system: str
    """sys.platform: "linux", "darwin", "win32", "emscripten" (a browser tab), ..."""
    distro: str = ""
    """ID from /etc/os-release: "debian", "ubuntu", "fedora", ..."""
    version: str = ""
    """VERSION_ID from /etc/os-release, e.g. "24.04"."""
    hosted: str = ""
    """"colab", "binder", or the container it runs in ("docker", "kubernetes", or "container" for
    another engine), or "" (a machine or VM of your own)."""
    bwrap_installed: bool = True
    libseccomp_installed: bool = True
    """libseccomp2, which builds the sandbox's seccomp filter (apt depends on it: always there on Debian)."""
    apparmor_restricts_userns: bool = False
    """kernel.apparmor_restrict_unprivileged_userns = 1 (Ubuntu 23.10 and later, by default)."""
    userns_clone_disabled: bool = False
    """kernel.unprivileged_userns_clone = 0 (older Debian kernels)."""
    max_user_namespaces: int | None = None

    @classmethod
    def here(cls, env: Mapping[str, str] = os.environ) -> Machine:
        release = _os_release(Path("/etc/os-release"))
        return cls(
            system=sys.platform,
            distro=release.get("ID", ""),
            version=release.get("VERSION_ID", ""),
            hosted=_hosted(env),
            bwrap_installed=os.access(BWRAP, os.X_OK),
            libseccomp_installed=_loadable("libseccomp.so.2"),
            apparmor_restricts_userns=_sysctl("kernel/apparmor_restrict_unprivileged_userns") == 1,
            userns_clone_disabled=_sysctl("kernel/unprivileged_userns_clone") == 0,
            max_user_namespaces=_sysctl("user/max_user_namespaces"),
        )


def sandbox_advice(machine: Machine, lang: Language | None = None) -> str:
    """The one command that lets Bubblewrap build its sandbox here, or what to expect where none will."""
    texts = strings(lang).doctor
    if machine.system == "darwin":
        return texts.on_macos
    if machine.system.startswith("win"):
        return texts.on_windows
    if machine.hosted == "colab":
        return texts.on_colab
    if machine.hosted == "binder":
        return texts.on_binder
    if not machine.bwrap_installed:
        if machine.distro in ("fedora", "rhel", "centos", "rocky", "almalinux"):
            return "`sudo dnf install bubblewrap`"
        return texts.install_apt.format(command="`sudo apt-get install bubblewrap`")
    if not machine.libseccomp_installed:
        if machine.distro in ("fedora", "rhel", "centos", "rocky", "almalinux"):
            return "`sudo dnf install libseccomp`"
        return "`sudo apt-get install libseccomp2`"
    if machine.hosted == "docker":
        return texts.on_docker
    if machine.hosted == "kubernetes":
        return texts.on_kubernetes
    if machine.hosted == "container":
        return texts.on_container
    if machine.apparmor_restricts_userns:
        return texts.apparmor.format(command="`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`")
    if machine.userns_clone_disabled:
        return "`sudo sysctl -w kernel.unprivileged_userns_clone=1`"
    if machine.max_user_namespaces == 0:
        return "`sudo sysctl -w user.max_user_namespaces=15000`"
    return texts.unknown_block


def check_all(env: Mapping[str, str] = os.environ, lang: Language | None = None) -> list[Check]:
    """Every check, in ``lang`` (``current_language()`` when None)."""
    return [_python(lang), _widgets(lang), _sandbox(Machine.here(env), lang), _live_model(env, lang)]


def report(checks: list[Check], lang: Language | None = None) -> str:
    marks = {"ok": "✓", "limited": "~", "failed": "✗"}
    texts = strings(lang).doctor
    width = max([10, *(len(check.label or check.name) for check in checks)])
    lines = []
    for check in checks:
        lines.append(f"{marks[check.status]} {check.label or check.name:{width}} {check.detail}")
        if check.fix:
            lines.append(f"  {'':{width}} {texts.fix.format(fix=check.fix)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, lang: Language | None = None) -> int:
    """Print the report; 1 if a check failed. ``--lang ru`` (or ``lang``) prints it in Russian."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["--lang"] and len(arguments) == 2 and arguments[1] in LANGUAGES:
        lang = check_language(arguments[1])
    elif arguments:
        print(f"{strings(lang).cli.usage}python -m reactlab.doctor [--lang {{{','.join(LANGUAGES)}}}]", file=sys.stderr)
        return 2
    checks = check_all(lang=lang)
    print(report(checks, lang))
    return 1 if any(c.status == "failed" for c in checks) else 0


def _python(lang: Language | None) -> Check:
    texts = strings(lang).doctor
    found = texts.python_found.format(version=".".join(map(str, sys.version_info[:3])), executable=sys.executable)
    return Check("Python", "ok", found, label=texts.name_python)


def _widgets(lang: Language | None) -> Check:
    texts = strings(lang).doctor
    try:
        import ipywidgets
    except ImportError:
        return Check("widgets", "failed", texts.widgets_missing, "`pip install 'ipywidgets>=8.1'`", texts.name_widgets)
    detail = f"ipywidgets {ipywidgets.__version__}"
    if IN_BROWSER:  # the frontend's half is built into the page, not installed beside Python
        return Check("widgets", "ok", detail + texts.in_page_widgets, label=texts.name_widgets)
    try:
        detail += f", jupyterlab_widgets {metadata.version('jupyterlab_widgets')}"
    except metadata.PackageNotFoundError:
        detail += texts.no_lab_extension
    return Check("widgets", "ok", detail, label=texts.name_widgets)


def sandbox_problem() -> str | None:
    """Why bash cannot be isolated on this machine, or None where Bubblewrap builds the sandbox."""
    return available()


def _sandbox(machine: Machine, lang: Language | None) -> Check:
    texts = strings(lang).doctor
    if machine.system == "emscripten":  # a browser tab: its own case, with nothing to fix
        in_browser = texts.in_browser.format(replayed=strings(lang).results.replayed)
        return Check("sandbox", "limited", in_browser, label=texts.name_sandbox)
    problem = sandbox_problem()
    if problem is not None:
        replay = texts.replay_mode.format(replayed=strings(lang).results.replayed)
        detail = texts.sandbox_limited.format(problem=problem, replay=replay)
        return Check("sandbox", "limited", detail, sandbox_advice(machine, lang), texts.name_sandbox)
    return Check("sandbox", "ok", texts.sandbox_ok, label=texts.name_sandbox)


def _live_model(env: Mapping[str, str], lang: Language | None) -> Check:
    texts = strings(lang).doctor
    if IN_BROWSER:
        return Check("live model", "limited", texts.live_in_browser, label=texts.name_live_model)
    base_url = env.get("REACTLAB_BASE_URL")
    if base_url:
        parts = urlsplit(base_url)
        where = f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"  # no user:password
        if base_url.startswith(SCHEME):
            where = base_url  # a socket's path holds no password
        return Check("live model", "ok", texts.live_base_url.format(where=where), label=texts.name_live_model)
    if env.get("DEEPSEEK_API_KEY"):
        return Check("live model", "ok", texts.live_deepseek, label=texts.name_live_model)
    return Check("live model", "limited", texts.live_none, texts.live_fix, texts.name_live_model)


def _hosted(env: Mapping[str, str]) -> str:
    if "COLAB_RELEASE_TAG" in env or "google.colab" in sys.modules:
        return "colab"
    if any(name.startswith("BINDER_") for name in env):
        return "binder"
    return container_engine(
        _read(Path("/proc/self/mountinfo")), _read(Path("/proc/1/cgroup")), env, Path("/run/.containerenv").exists()
    )


def container_engine(mountinfo: str, first_cgroup: str, env: Mapping[str, str], containerenv: bool = False) -> str:
    """ "docker", "kubernetes", "container" (another engine) or "" (not in a container), from what an
    engine does to start a container: it mounts files of its own over the image's /etc/hostname,
    /etc/hosts and /etc/resolv.conf (a machine or VM has them as plain files), whose sources name
    the engine, as the first process's cgroup does on cgroup v1; Kubernetes sets
    KUBERNETES_SERVICE_HOST and Podman writes /run/.containerenv (``containerenv``). A /.dockerenv
    file alone is no sign: a VM made from a Docker image keeps it."""
    sources = [
        fields[3]
        for fields in map(str.split, mountinfo.splitlines())
        if len(fields) > 4 and fields[4] in ("/etc/hostname", "/etc/hosts", "/etc/resolv.conf")
    ]
    named = " ".join([*sources, first_cgroup])
    if "kubelet" in named or "kubepods" in named or "KUBERNETES_SERVICE_HOST" in env:
        return "kubernetes"
    if "docker" in named:
        return "docker"
    if sources or containerenv or env.get("container"):
        return "container"
    return ""


def _os_release(path: Path) -> dict[str, str]:
    found = {}
    for line in _read(path).splitlines():
        key, _, value = line.partition("=")
        found[key.strip()] = value.strip().strip('"')
    return found


def _loadable(library: str) -> bool:
    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True


def _sysctl(name: str) -> int | None:
    text = _read(Path("/proc/sys") / name).strip()
    return int(text) if text.lstrip("-").isdigit() else None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


if __name__ == "__main__":
    raise SystemExit(main())
