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

from .core.browser import IN_BROWSER
from .core.language import LANGUAGES, Language, check_language, say
from .core.sandbox import BWRAP, available
from .core.slips.unix_socket import SCHEME

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
    if machine.system == "darwin":
        return say(
            "macOS has no Bubblewrap (it is Linux only). To run bash for real, use a Linux machine or VM.", lang=lang
        )
    if machine.system.startswith("win"):
        return say(
            "Windows has no Bubblewrap. In WSL 2 (Ubuntu): `sudo apt-get install bubblewrap`, then run there.",
            lang=lang,
        )
    if machine.hosted == "colab":
        return say("Colab's runtime does not let Bubblewrap build its sandbox; nothing to fix there.", lang=lang)
    if machine.hosted == "binder":
        return say(
            "Binder runs in Docker, whose default seccomp profile blocks user namespaces; nothing to fix there.",
            lang=lang,
        )
    if not machine.bwrap_installed:
        if machine.distro in ("fedora", "rhel", "centos", "rocky", "almalinux"):
            return "`sudo dnf install bubblewrap`"
        return say(
            "{command} (Debian, Ubuntu; elsewhere the package is also `bubblewrap`)",
            lang=lang,
            command="`sudo apt-get install bubblewrap`",
        )
    if not machine.libseccomp_installed:
        if machine.distro in ("fedora", "rhel", "centos", "rocky", "almalinux"):
            return "`sudo dnf install libseccomp`"
        return "`sudo apt-get install libseccomp2`"
    if machine.hosted == "docker":
        return say(
            "Docker's default seccomp profile blocks user namespaces: start the container with "
            "`docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined ...` "
            "(this loosens the container's own isolation).",
            lang=lang,
        )
    if machine.hosted == "kubernetes":
        return say(
            "In a Kubernetes pod the sandbox needs user namespaces and mounts in them: the pod's "
            "securityContext with seccompProfile and appArmorProfile of type Unconfined (this loosens the "
            "pod's own isolation), on a node that allows unprivileged user namespaces.",
            lang=lang,
        )
    if machine.hosted == "container":
        return say(
            "This runs in a container: its engine must let it make user namespaces (a seccomp profile "
            "that allows them), or the notebooks stay in replay mode here.",
            lang=lang,
        )
    if machine.apparmor_restricts_userns:
        return say(
            "{command} (Ubuntu 23.10 and later; lasts until reboot, put it in /etc/sysctl.d/ to keep it)",
            lang=lang,
            command="`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
        )
    if machine.userns_clone_disabled:
        return "`sudo sysctl -w kernel.unprivileged_userns_clone=1`"
    if machine.max_user_namespaces == 0:
        return "`sudo sysctl -w user.max_user_namespaces=15000`"
    return say(
        "Bubblewrap is installed but failed for the reason above; unprivileged user namespaces may be blocked.",
        lang=lang,
    )


def check_all(env: Mapping[str, str] = os.environ, lang: Language | None = None) -> list[Check]:
    """Every check, in ``lang`` (``current_language()`` when None)."""
    return [_python(lang), _widgets(lang), _sandbox(Machine.here(env), lang), _live_model(env, lang)]


def report(checks: list[Check], lang: Language | None = None) -> str:
    marks = {"ok": "✓", "limited": "~", "failed": "✗"}
    width = max([10, *(len(check.label or check.name) for check in checks)])
    lines = []
    for check in checks:
        lines.append(f"{marks[check.status]} {check.label or check.name:{width}} {check.detail}")
        if check.fix:
            lines.append(f"  {'':{width}} {say('fix: {fix}', lang=lang, fix=check.fix)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, lang: Language | None = None) -> int:
    """Print the report; 1 if a check failed. ``--lang ru`` (or ``lang``) prints it in Russian."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["--lang"] and len(arguments) == 2 and arguments[1] in LANGUAGES:
        lang = check_language(arguments[1])
    elif arguments:
        print(
            f"{say('usage: ', lang=lang)}python -m reactlab.doctor [--lang {{{','.join(LANGUAGES)}}}]", file=sys.stderr
        )
        return 2
    checks = check_all(lang=lang)
    print(report(checks, lang))
    return 1 if any(c.status == "failed" for c in checks) else 0


def _python(lang: Language | None) -> Check:
    found = say(
        "{version} at {executable}",
        lang=lang,
        version=".".join(map(str, sys.version_info[:3])),
        executable=sys.executable,
    )
    return Check("Python", "ok", found, label="Python")


def _widgets(lang: Language | None) -> Check:
    try:
        import ipywidgets
    except ImportError:
        return Check(
            "widgets",
            "failed",
            say("ipywidgets is not installed", lang=lang),
            "`pip install 'ipywidgets>=8.1'`",
            say("widgets", lang=lang),
        )
    detail = f"ipywidgets {ipywidgets.__version__}"
    if IN_BROWSER:  # the frontend's half is built into the page, not installed beside Python
        return Check(
            "widgets",
            "ok",
            detail + say(", with the page's JupyterLab extension", lang=lang),
            label=say("widgets", lang=lang),
        )
    try:
        detail += f", jupyterlab_widgets {metadata.version('jupyterlab_widgets')}"
    except metadata.PackageNotFoundError:
        detail += say(
            " (no JupyterLab extension here: the schemes show as static HTML unless your frontend has one)", lang=lang
        )
    return Check("widgets", "ok", detail, label=say("widgets", lang=lang))


def sandbox_problem() -> str | None:
    """Why bash cannot be isolated on this machine, or None where Bubblewrap builds the sandbox."""
    return available()


def _sandbox(machine: Machine, lang: Language | None) -> Check:
    if machine.system == "emscripten":  # a browser tab: its own case, with nothing to fix
        in_browser = say(
            'a browser tab runs no programs, so bash results come from the cassettes, marked "{replayed}"; '
            "read_file and edit really run, on copies in the page's memory, and notebook 05's independent test "
            "run really runs the tests, in the page's own Python: the browser is their sandbox. Nothing to fix "
            "for the course; for bash itself, `make lab` on Linux",
            lang=lang,
            replayed=say("replayed, not run on this machine", lang=lang),
        )
        return Check("sandbox", "limited", in_browser, label=say("sandbox", lang=lang))
    problem = sandbox_problem()
    if problem is not None:
        replay = say(
            "Until then the notebooks still run: bash results come from the cassettes, marked "
            '"{replayed}"; read_file and edit really run; bash never runs on the host.',
            lang=lang,
            replayed=say("replayed, not run on this machine", lang=lang),
        )
        detail = say("bash cannot be isolated here: {problem} {replay}", lang=lang, problem=problem, replay=replay)
        return Check("sandbox", "limited", detail, sandbox_advice(machine, lang), say("sandbox", lang=lang))
    return Check(
        "sandbox",
        "ok",
        say("Bubblewrap builds the sandbox: bash really runs, isolated", lang=lang),
        label=say("sandbox", lang=lang),
    )


def _live_model(env: Mapping[str, str], lang: Language | None) -> Check:
    if IN_BROWSER:
        return Check(
            "live model",
            "limited",
            say(
                "a browser tab opens no connections of its own, so every notebook runs offline here; notebook 07's "
                "live run needs reactlab on a machine (`make lab`)",
                lang=lang,
            ),
            label=say("live model", lang=lang),
        )
    base_url = env.get("REACTLAB_BASE_URL")
    if base_url:
        parts = urlsplit(base_url)
        where = f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"  # no user:password
        if base_url.startswith(SCHEME):
            where = base_url  # a socket's path holds no password
        return Check(
            "live model",
            "ok",
            say("REACTLAB_BASE_URL points live runs at {where}", lang=lang, where=where),
            label=say("live model", lang=lang),
        )
    if env.get("DEEPSEEK_API_KEY"):
        return Check(
            "live model",
            "ok",
            say("DEEPSEEK_API_KEY is set (not shown): live runs go to DeepSeek", lang=lang),
            label=say("live model", lang=lang),
        )
    return Check(
        "live model",
        "limited",
        say(
            "no DEEPSEEK_API_KEY and no REACTLAB_BASE_URL: every notebook runs offline; notebook 07's live run "
            "needs one",
            lang=lang,
        ),
        say("set DEEPSEEK_API_KEY before starting Jupyter, or REACTLAB_BASE_URL for a local server", lang=lang),
        say("live model", lang=lang),
    )


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
