"""``argue eval``: does debating pay off? The same questions through four arms — one call
(single), K samples and a majority vote (vote, K matched to the debate's calls), Du et al.'s
multiagent debate (society: N identical agents × R rounds) and an answer-seeking argue debate —
scored against known answers (argue's convention and the paper's), with intervals and paired
tests.

Small modules: ``datasets`` (JSONL, GSM8K lines, Du et al.'s 100 problems and a
mixed-operator arithmetic set), ``normalize`` (answers compared per kind), ``stats`` (Wilson
interval, McNemar exact test), ``arms`` (the four arms),
``folder`` (the eval folder and its per-item JSONL), ``budget`` (the whole eval's budget and
its Ctrl-C stop), ``runner`` (items concurrently, resume), ``report`` (numbers, verdicts, the
terminal table).
"""
