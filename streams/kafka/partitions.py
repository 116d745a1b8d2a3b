"""How many partitions the worker runs with, and the check that joined topics agree on it.

Faust joins by partition number: an agent reading several topics gets partition ``p`` of each
on the same worker, and a table's changelog partition ``p`` holds what that agent wrote while
handling partition ``p``. Topics read together (and those changelogs) with different counts
put an article's messages on different workers: joins never meet and state is restored to
the wrong owner, silently. So the worker checks at start and refuses to run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

PARTITIONS_ENV = "ARTICLE_RUNTIME_PARTITIONS"  # the count missing topics are created with


class PartitionMismatch(RuntimeError):
    """Topics read together have different partition counts; the message names them."""


def found_count(existing: Mapping[str, int], wanted: int) -> int:
    """The count topics are created with: ``wanted`` on a cluster without any of them, else
    the count most of those that exist have (the check then names any that differ)."""
    if not existing:
        return wanted
    counts = Counter(existing.values()).most_common()
    return counts[0][0]


def mismatches(groups: Mapping[str, Sequence[str]], counts: Mapping[str, int]) -> list[str]:
    """One description per group whose topics do not all have one count, e.g.
    ``agent enrichment reads article.assembled (6), ecp.verdict (3)``."""
    found = []
    for reader, topics in groups.items():
        if len({counts[t] for t in topics}) > 1:
            listed = ", ".join(f"{t} ({counts[t]})" for t in topics)
            found.append(f"{reader} reads {listed}")
    return found


def check_copartitioned(groups: Mapping[str, Sequence[str]], counts: Mapping[str, int]) -> None:
    """Raise ``PartitionMismatch`` (one line) unless every group's topics have one count."""
    found = mismatches(groups, counts)
    if found:
        raise PartitionMismatch(
            "topics read together must have one partition count, but "
            + "; ".join(found)
            + f" (existing topics keep theirs: {PARTITIONS_ENV} only sizes new ones)"
        )
