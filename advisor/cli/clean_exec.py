"""`python -m advisor.cli.clean_exec [--deny PATTERN ...] -- COMMAND ...`: run COMMAND with this
environment minus every SLACK_* variable and the names or patterns given (advisor.pilot.launchers
.env). The process is replaced (``os.execvpe``), so the command's ``/proc/<pid>/environ`` holds
only what was kept. The Ray launcher's job entrypoint starts the pilot runner through it: a Ray
job inherits the node's environment, which the bot does not control."""

from __future__ import annotations

import os
import sys

from advisor.pilot.launchers.env import DEFAULT_DENY, child_environment


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    deny: list[str] = []
    while args and args[0] != "--":
        flag = args.pop(0)
        if flag == "--deny" and args:
            deny.append(args.pop(0))
        else:
            print(f"usage: python -m advisor.cli.clean_exec [--deny PATTERN ...] -- COMMAND ...; got {flag!r}",
                  file=sys.stderr)
            return 2
    if not args or len(args) < 2:
        print("usage: python -m advisor.cli.clean_exec [--deny PATTERN ...] -- COMMAND ...", file=sys.stderr)
        return 2
    command = args[1:]
    env = child_environment(os.environ, deny=deny or DEFAULT_DENY)
    os.execvpe(command[0], command, env)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
