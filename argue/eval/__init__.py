"""``argue eval``: does debating pay off? The same questions through three arms — one call
(single), K samples and a majority vote (vote, K matched to the debate's calls), and an
answer-seeking debate — scored against known answers, with intervals and paired tests.

Small modules: ``datasets`` (JSONL and the built-in arithmetic task), ``normalize`` (answers
compared per kind), ``stats`` (Wilson interval, McNemar exact test), ``arms`` (the three arms),
``folder`` (the eval folder and its per-item JSONL), ``budget`` (the whole eval's budget and
its Ctrl-C stop), ``runner`` (items concurrently, resume), ``report`` (numbers, verdicts, the
terminal table).
"""
