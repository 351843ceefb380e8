"""The child of one group of questions, started on demand with the notebook's cells run in it, and
the Result of one submission that grading fills in (grader.py).

A cell that hangs or kills its child is left out of the group's next child; a cell that raises is
logged and the next cells run, as in Jupyter. Every request ends by the submission's deadline.
"""
from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from anatomy_grading import plan as plans
from anatomy_grading import sandbox, uids
from anatomy_grading.connection import Child, ChildFailed
from anatomy_grading.proxies import Session

CELL_TIMEOUT = 120.0


@dataclass
class Result:
    tests: list[dict] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    seconds: float = 0.0
    language: str = "en"  # the submission's edition: its feedback is worded in it ("en" or "ko")

    def score(self, question: str | None = None) -> float:
        return sum(t["score"] for t in self.tests if question in (None, t["question"]))


class Runner:
    """The child of one group, started on demand with the notebook's cells run in it."""

    def __init__(self, group: plans.Group, cells: list[str], result: Result, slot: int, threads: int, hide: list[Path],
                 cell_timeout: float = CELL_TIMEOUT, deadline: float = math.inf, total: float = 0.0):
        self.group, self.cells, self.result, self.cell_timeout = group, cells, result, cell_timeout
        self.deadline, self.over = deadline, f"ran past the grader's limit of {total:.0f} s for one notebook"
        threads = 1 if group.sealed else threads  # a sealed child runs one thread, so that the cell can start none (seal.py)
        self.setup = {"threads": threads, "policy": group.policy, "preload": list(group.preload), "sealed": group.sealed,
                      "substitutes": [[m, Path(importlib.import_module(m).__file__).read_text()] for m in group.substitutes]}
        cpu = int(min(total or 1800.0, 3600.0) * max(1, threads))  # CPU seconds of all its threads (a fork counts its own)
        self.confinement = sandbox.plan(hide, uids.own_uid(slot), cpu)
        self.session: Session | None = None
        self.skipped: set[int] = set()

    def ready(self) -> Session:
        while self.session is None:
            if time.monotonic() >= self.deadline:
                raise ChildFailed(self.over)
            child = Child(self.setup, self.confinement, start_timeout=min(120.0, self.deadline - time.monotonic()))
            self.result.held = self.confinement["held"] + [f"policy {self.group.policy}: {len(child.poisoned)} library "
                                                            "functions refused"] + child.sealed
            unsealed = ("graded without Landlock, or without a uid of its own: a test's native code could keep a "
                        "file, or a run change a process of the grading user, between runs; read its tests")
            if self.group.sealed and unsealed not in self.result.flags and (self.confinement["uid"] is None or not any(
                    line.startswith("sealed: no file writes") for line in child.sealed)):
                self.result.flags.append(unsealed)
            session = Session(child, self.group.call_timeout, self.deadline, self.over)
            for index, source in enumerate(self.cells):
                if index in self.skipped:
                    continue
                try:
                    session.send("exec", timeout=self.cell_timeout, source=source, index=index)
                except ChildFailed as failure:
                    self.result.log.append(f"cell {index} {failure}: left out of the next run")
                    self.skipped.add(index)
                    break
                except Exception as error:  # the student's cell raised: as in Jupyter, the next cells still run
                    self.result.log.append(f"cell {index} raised {type(error).__name__}: {str(error)[:200]}")
            else:
                self.session = session
        return self.session

    def close(self) -> None:
        if self.session is not None:
            self.result.log.append(f"child log ({self.group.questions}):\n{self.session.child.log_tail(4096)}")
            self.session.child.close()
            self.session = None
