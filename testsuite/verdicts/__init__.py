"""Verdicts: people's decisions on outputs, and everything that helps to make them.

* `store`: the ``verdicts.yaml`` files (locked, atomic, nothing replaced silently);
* `queue`: the pending warnings in impact order, and recording a decision;
* `conflicts`: contradicting verdicts (disagreements) and what a new verdict would change;
* `proposals`: one verdict on many outputs, learned from decided ones, with its evidence,
  estimated precision and id; `suggest`: gathers them from judged rows; `batch`: a
  person's own batch, recording any proposal, taking it back;
* `why`: why a rule missed an output (closest partial matches);
* `agreement`: blind re-decisions and Cohen's κ; `sheets`: spreadsheet export and import.

Only the store is imported here (the rule editor and the loader need it); import the other
modules where they are used.
"""

from .store import (
    VERDICTS_FILE,
    default_annotator,
    make_verdict,
    now,
    record,
    record_many,
    remove,
    remove_many,
    set_note,
    verdict_file,
)

__all__ = ["VERDICTS_FILE", "default_annotator", "make_verdict", "now", "record",
           "record_many", "remove", "remove_many", "set_note", "verdict_file"]
