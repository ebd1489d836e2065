"""Outputs of a run: the 儀注 (:mod:`sheli.outputs.yizhu`), the event log
(:mod:`sheli.outputs.eventlog`), the frames and diagrams, the viewer, the cue sheets and the
run-of-show; each reads the run the engine returns (docs/architecture.md).

>>> from sheli.engine import run
>>> from sheli.outputs.eventlog import record_lines
>>> next(record_lines(run("xiangshe", seed=1).records[1:]))[:40].decode()
'{"type":"step","seq":1,"round":0,"sectio'
"""
