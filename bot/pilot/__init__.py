"""The pilot wing: a measured pilot started from Slack.

    flow.py       PilotFlow: the jobs (propose, confirm, decline, cancel, final) and the watcher
    listeners.py  the buttons: each records its click as a job and acks (``register(app)``)
    policy.py     who may start pilots, where, and how much they may spend
    render.py     the confirmation, the status edited in place, the end, the refusals

State changes of a pilot belong to advisor.pilot.tracking (the CLI uses it too); a sharded spec is
refused in advisor.pilot.spec before anything is proposed; whether the pilot will fit is the
answer's own rule (advisor.fit).
"""
