"""Issue 28, item 2: every shell block of README.md and clients/python/README.md (and the Python client README's
Python blocks) runs as pasted against the demo, served by a live server.

The blocks of one README run in order in one bash process, as a reader pastes them into one terminal, with
`set -eo pipefail`; a block fails the test when it exits non-zero or writes to stderr (the examples call
`curl -fsS`, so an error answer fails them). The only change made to the text is the server's address: the
README's `http://127.0.0.1:8000` (make run's) becomes the live server's. The blocks run in a folder that has the
project's `manage.py` and `.venv` (this interpreter's), with the test database as the demo's (BRAIN_DB_NAME).
A block that is not meant to run against the demo (`make run`, installs) says so just above it, visibly:
`<!-- not run: reason -->`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from tests.conftest import REPO

READMES = {REPO / "README.md": {"sh"}, REPO / "clients" / "python" / "README.md": {"sh", "python"}}
SHELLS = {"sh", "bash", "shell"}
MAKE_RUN_ADDRESS = "http://127.0.0.1:8000"
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->")
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
MAX_NOT_RUN = 4  # make run, make test, the Celery processes, the client's pip install
MARK = "@@readme-block@@"


@dataclass(frozen=True)
class Block:
    readme: Path
    line: int
    language: str
    code: str
    not_run: str  # the marker's reason, or ""

    @property
    def where(self) -> str:
        return f"{self.readme.relative_to(REPO)}:{self.line}"


def blocks(readme: Path) -> list[Block]:
    text = readme.read_text()
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip().rsplit("\n", 1)[-1]
        marker = NOT_RUN.fullmatch(before.strip())
        language = match.group(1).strip()
        language = "sh" if language in SHELLS else language
        found.append(
            Block(
                readme,
                text.count("\n", 0, match.start()) + 1,
                language,
                match.group(2),
                marker.group(1) if marker else "",
            )
        )
    return found


def runnable(readme: Path) -> list[Block]:
    return [b for b in blocks(readme) if b.language in READMES[readme] and not b.not_run]


def test_every_block_says_its_language_and_few_are_left_out():
    every = [b for readme in READMES for b in blocks(readme)]
    assert [b.where for b in every if not b.language] == []  # an unlabelled shell block would escape the test
    left_out = [b for b in every if b.not_run]
    assert len(left_out) <= MAX_NOT_RUN, [(b.where, b.not_run) for b in left_out]
    assert all(
        b.language in READMES[b.readme] for b in left_out
    )  # a marker on a block that would not run anyway
    assert len(runnable(REPO / "README.md")) >= 8 and len(runnable(REPO / "clients/python/README.md")) == 2
    setup = runnable(REPO / "README.md")[0].code
    assert f"BRAIN={MAKE_RUN_ADDRESS} " in setup and "manage.py demo_key" in setup


def script_for(readme: Path, base_url: str) -> tuple[str, list[Block]]:
    """One bash script of the README's blocks in order, each announced on stdout and stderr."""
    chosen = runnable(readme)
    parts = ["set -eo pipefail"]
    for index, block in enumerate(chosen):
        code = block.code.replace(MAKE_RUN_ADDRESS, base_url)
        if block.language == "python":  # what `.venv/bin/python example.py` runs, in the same terminal
            code = f".venv/bin/python - <<'README_PYTHON'\n{code}README_PYTHON\n"
        parts += [announce(index), code]
    parts.append(announce("end"))
    return "\n".join(parts), chosen


def announce(index) -> str:
    """A line of its own on both streams (an answer printed before it may not end its line)."""
    return f"printf '\\n{MARK}{index}\\n'; printf '\\n{MARK}{index}\\n' >&2"


def per_block(output: str, count: int) -> list[str]:
    pieces = re.split(rf"^{MARK}(\d+|end)\n", output, flags=re.M)
    found = {pieces[i]: pieces[i + 1] for i in range(1, len(pieces) - 1, 2)}
    return [found.get(str(index), "") for index in range(count)]


@pytest.fixture
def project_folder(tmp_path):
    """The project's folder as a reader has it: manage.py and .venv (this interpreter's) side by side."""
    (tmp_path / "manage.py").symlink_to(REPO / "manage.py")
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    return tmp_path


def run_readme(readme: Path, base_url: str, folder: Path) -> list[str]:
    """Run the README's blocks in one bash process; the blocks that failed, each with its output."""
    script, chosen = script_for(readme, base_url)
    env = {k: v for k, v in os.environ.items() if k not in {"BRAIN", "KEY", "AGENT", "ADS_AGENT"}}
    env["BRAIN_DB_NAME"] = connection.settings_dict["NAME"]  # the demo's database is the test's
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "clients" / "python"), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        ["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )
    outputs, errors = per_block(result.stdout, len(chosen)), per_block(result.stderr, len(chosen))
    reached = re.findall(rf"^{MARK}(\d+|end)$", result.stdout, re.M)
    failed = [
        f"{block.where}: exit {result.returncode}\n--- stdout\n{outputs[i][-1500:]}\n--- stderr\n{errors[i][-1500:]}"
        for i, block in enumerate(chosen)
        if errors[i].strip() or (reached[-1:] == [str(i)] and result.returncode)
    ]
    if not failed and (result.returncode or reached[-1:] != ["end"]):
        failed.append(f"{readme.name}: exit {result.returncode}\n{result.stderr[-3000:]}")
    return failed


@pytest.mark.django_db(transaction=True)
def test_the_readme_examples_run_against_the_demo(live_server, project_folder):
    from brain.models import Memory

    call_command("seed_demo", stdout=StringIO())
    failed = [
        problem for readme in READMES for problem in run_readme(readme, live_server.url, project_folder)
    ]
    assert failed == [], "\n\n".join(failed)
    # The examples did what they say: the suggestion proposed from the ratings was activated.
    activated = Memory.objects.all_tenants().filter(
        source="suggested", status="active", text="Share the tracking link in the first reply."
    )
    assert activated.exists()
