"""Outputs of a run: the 儀注 (:mod:`sheli.outputs.yizhu`) and the event log
(:mod:`sheli.outputs.eventlog`)."""
