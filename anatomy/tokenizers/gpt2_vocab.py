"""GPT-2's real vocabulary (50,257 tokens) loaded into our ByteLevelBPE, offline.

Taught in: 15_byte_level_bpe. No shapes: text in, ids out.
There is no model hub here, but OpenAI's Whisper ships GPT-2's byte-level BPE as
`whisper/assets/gpt2.tiktoken` in its source distribution on PyPI (openai-whisper, MIT licence): one
line per token, "<base64 of the token's bytes> <rank>", ranks 0..50255 (= GPT-2's ids), plus
"<|endoftext|>" = 50256. We fetch it once with pip into the data folder (next to the review data),
check its SHA-256, never commit it.

tiktoken's file stores ranks, not merges: BPE there merges, at each step, the adjacent pair whose
joined bytes form the token of lowest rank. Our tokenizer applies merges by rank, so we recover
them (recover_merges): for each token in rank order, run BPE on its own bytes with only the tokens
ranked below it; the two parts left are the pair that made it.
"""
from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.tokenizers.byte_level import BYTE_TO_CHAR
from anatomy.corpora.sentiment_data import data_dir

WHISPER = "openai-whisper==20250625"
RANKS_FILE = "gpt2.tiktoken"
RANKS_SHA256 = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
END_OF_TEXT = "<|endoftext|>"  # id 50256
FETCH_COMMAND = 'python -c "import anatomy.tokenizers.gpt2_vocab as g; g.fetch_gpt2_ranks()"  (or: make install)'


def ranks_path() -> Path:
    return data_dir() / RANKS_FILE


def _checks_out(path: Path) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == RANKS_SHA256


def fetch_gpt2_ranks(quiet: bool = True) -> Path:
    """Download Whisper's source distribution with pip (no dependencies) and keep its gpt2.tiktoken."""
    target = ranks_path()
    if _checks_out(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--timeout",
                        "20", *(["-q"] if quiet else []), "-d", tmp, WHISPER], check=True, capture_output=quiet, timeout=600)
        with tarfile.open(next(Path(tmp).glob("openai_whisper-*.tar.gz"))) as sdist:
            member = next(m for m in sdist.getmembers() if m.name.endswith(f"whisper/assets/{RANKS_FILE}"))
            raw = sdist.extractfile(member).read()
    if hashlib.sha256(raw).hexdigest() != RANKS_SHA256:
        raise ValueError(f"{WHISPER}'s {RANKS_FILE} is not the expected file (SHA-256 differs from {RANKS_SHA256})")
    partial = target.with_suffix(".part")
    partial.write_bytes(raw)
    partial.replace(target)
    return target


def gpt2_ranks(fetch: bool = True) -> dict[bytes, int]:
    """{token bytes: rank} for GPT-2's 50,256 byte-level tokens (no special token)."""
    path = ranks_path()
    if fetch and not _checks_out(path):
        try:
            fetch_gpt2_ranks()
        except (OSError, subprocess.SubprocessError, StopIteration, tarfile.TarError, ValueError):
            pass  # reported just below, with the command to run by hand
    if not _checks_out(path):
        raise FileNotFoundError(f"GPT-2's ranks are missing or not Whisper's copy: expected {path}. Fetch them once "
                                f"(needs the Python package index) with: {FETCH_COMMAND}")
    lines = path.read_text(encoding="ascii").splitlines()
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in lines if line)}


def recover_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merge that made each token of more than one byte, in rank order."""
    if not isinstance(ranks, dict) or not all(isinstance(t, bytes) and t for t in ranks):
        raise TypeError(f"ranks must be a dict {{token bytes: rank}} (gpt2_ranks()), got {type(ranks).__name__}")
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1:
            continue
        parts = [token[i:i + 1] for i in range(len(token))]
        if missing := sorted({part for part in parts if part not in ranks}):
            raise ValueError(f"ranks lacks the single byte(s) {missing[:5]} of token {token!r} (rank {rank}): every "
                             "byte must be a token of its own for BPE to start from")
        while len(parts) > 2:  # BPE with only the tokens ranked below this one
            joined = [ranks.get(a + b, rank) for a, b in zip(parts, parts[1:])]
            best = min(range(len(joined)), key=joined.__getitem__)
            if joined[best] >= rank:
                raise ValueError(f"token {token!r} (rank {rank}) is not made by merging lower-ranked tokens")
            parts[best:best + 2] = [parts[best] + parts[best + 1]]
        merges.append((parts[0], parts[1]))
    return merges


def gpt2_tokenizer(fetch: bool = True) -> ByteLevelBPE:
    """Our ByteLevelBPE with GPT-2's 50,257 tokens: ids = GPT-2's, <|endoftext|> = 50256."""
    ranks = gpt2_ranks(fetch)

    def chars(token: bytes) -> str:
        return "".join(BYTE_TO_CHAR[byte] for byte in token)

    vocab = [chars(token) for token in sorted(ranks, key=ranks.__getitem__)]
    merges = [(chars(left), chars(right)) for left, right in recover_merges(ranks)]
    return ByteLevelBPE([*vocab, END_OF_TEXT], merges, [END_OF_TEXT])
