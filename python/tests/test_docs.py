"""docs/CI.md shows complete example files (tested where they are: the sh
script by ctest, hence fenced `shell`, not `sh`): each block marked
<!-- file: PATH --> is that file of the repository, byte for byte."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_examples_in_the_ci_page_are_the_tested_files():
    page = (ROOT / "docs/CI.md").read_text()
    blocks = re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```\n", page, re.S)
    assert len(blocks) >= 5
    for path, text in blocks:
        assert (ROOT / path).read_text() == text, path
