"""Real Korean text that installs offline: the Constitution of the Republic of Korea and ten bills.

Taught in: 15_byte_level_bpe (Korean BPE) and 16_pretraining. No shapes: text only.
The texts ship inside KoNLPy's wheel on PyPI (Park & Cho 2014, "KoNLPy: Korean natural language
processing in Python"; package GPL-3.0): `konlpy/data/corpus/kolaw/constitution.txt` (대한민국헌법,
the constitution as amended in 1987) and `konlpy/data/corpus/kobill/*.txt` (ten bills put to the
18th National Assembly in 2010, from its bill information system). They are public government
texts; we fetch the wheel once with pip, keep the eleven text files (about 150 KB) in the data folder
next to the review data ($ANATOMY_DATA, else ~/.cache/anatomy), check each SHA-256, never commit them.
No Java is needed: they are plain UTF-8 files.
"""
from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from anatomy.corpora.sentiment_data import data_dir

KONLPY = "konlpy==0.6.0"
FOLDER = "konlpy-0.6.0-corpus"
FETCH_COMMAND = 'python -c "import anatomy.corpora.korean_corpus as k; k.fetch_korean_corpus()"  (or: make install)'
FILES = {  # path inside konlpy/data/corpus -> SHA-256 of konlpy 0.6.0's copy
    "kolaw/constitution.txt": "69377a88c0e577b37b1373f4496147e995209d5139a993633a8a2776bc0e2ca8",
    "kobill/1809890.txt": "1329ddfc4ff032537434655fec37308c8568f930116c3c9d41c85a42d0647964",
    "kobill/1809891.txt": "581e29cf0c23a7a2996c8a82294c4679bcf280fabdb3fb13562c8a6275f78997",
    "kobill/1809892.txt": "bf6e04e21d0290567d4a004f702be7707487dce56ad1b0ea1719974afccc2c9a",
    "kobill/1809893.txt": "71cd8fe14d773cde18c1f7a174643ea68fa5abbf37a489d3061b2aebe6f10ab4",
    "kobill/1809894.txt": "68d8a5f46dd80d51e8c77af81ef3098dfabba937a50465a6850a2a204d72b786",
    "kobill/1809895.txt": "e8c8ac94dcc3cdd61f797ae44eb009837b5fee65d350f433cb312021b0fca3d4",
    "kobill/1809896.txt": "0bf889e12a2c27aa1eb08d1fb62a8c7ce7b1f55823fa5fb43a2f990ef39e4752",
    "kobill/1809897.txt": "afb9a083b8f1cdc15f1c6e963dd5f2f34552e8a51c2b98a0c148eb1a3b840e1f",
    "kobill/1809898.txt": "766ad881fe50a957dbe2e979bd41e0fdb1266a2f532e85e737be70d1e2ec90ee",
    "kobill/1809899.txt": "a0c17e4161cc7e46133009785bd906148be6e64412564fe3967cc2d377a661e9",
}
HELD_OUT = ("kobill/1809898.txt", "kobill/1809899.txt")  # two bills the notebook never trains on


def corpus_dir() -> Path:
    return data_dir() / FOLDER


def _checks_out(path: Path, sha256: str) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == sha256


def fetch_korean_corpus(quiet: bool = True) -> Path:
    """Download KoNLPy's wheel with pip (no dependencies, no Java) and keep its eleven corpus files
    in corpus_dir(); files already there that check out are kept. Returns corpus_dir()."""
    target = corpus_dir()
    if all(_checks_out(target / name, sha) for name, sha in FILES.items()):
        return target
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--timeout",
                        "20", *(["-q"] if quiet else []), "-d", tmp, KONLPY],
                       check=True, capture_output=quiet, timeout=600)
        with zipfile.ZipFile(next(Path(tmp).glob("konlpy-*.whl"))) as wheel:
            for name, sha in FILES.items():
                raw = wheel.read(f"konlpy/data/corpus/{name}")
                if hashlib.sha256(raw).hexdigest() != sha:
                    raise ValueError(f"{KONLPY}'s {name} is not the expected file (SHA-256 differs from {sha}); "
                                     "the package on the index changed: tell the maintainers")
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                partial = (target / name).with_suffix(".part")
                partial.write_bytes(raw)
                partial.replace(target / name)
    return target


def korean_documents(fetch: bool = True) -> dict[str, str]:
    """{'kolaw/constitution.txt': text, 'kobill/1809890.txt': text, ...}, newlines as '\\n'.
    Fetches the files on first use when `fetch` (needs the package index, e.g. on Colab)."""
    folder = corpus_dir()
    if fetch and not all(_checks_out(folder / name, sha) for name, sha in FILES.items()):
        try:
            fetch_korean_corpus()
        except (OSError, subprocess.SubprocessError, StopIteration, zipfile.BadZipFile, KeyError):
            pass  # reported just below, with the command to run by hand
    documents = {}
    for name, sha in FILES.items():
        if not _checks_out(folder / name, sha):
            raise FileNotFoundError(f"the Korean corpus file {folder / name} is missing or not KoNLPy 0.6.0's copy. "
                                    f"Fetch it once (needs the Python package index) with: {FETCH_COMMAND}")
        documents[name] = (folder / name).read_bytes().decode("utf-8").replace("\r\n", "\n")
    return documents


def korean_lines(held_out: bool = False, fetch: bool = True) -> list[str]:
    """The non-empty lines (stripped) of the training documents, or of the HELD_OUT bills if `held_out`."""
    documents = korean_documents(fetch)
    names = HELD_OUT if held_out else [name for name in documents if name not in HELD_OUT]
    return [line.strip() for name in names for line in documents[name].splitlines() if line.strip()]
