"""ns-2.35 as a second simulator for aqmlab's scenarios (docs/ns2.md).

    from aqmlab import ns2
    res = ns2.run("scenarios/rem_dumbbell.toml")   # ns-2.35's queues and flows tables
    ns2.translate(aqmlab.canonical(s)).tcl         # the Tcl script it ran

A scenario that uses what ns-2.35 cannot run exactly raises ``Unsupported`` with the list
of what is not translated; without the `ns` command ``NotInstalled`` says how to install
it (Debian's package ``ns2``).
"""

from aqmlab.ns2.run import (
    INSTALL_HINT,
    NotInstalled,
    Ns2Error,
    Ns2Results,
    available,
    command,
    metrics,
    read,
    rng_seed,
    run,
)
from aqmlab.ns2.tcl import SIMULATOR, TCP_DEFAULTS, Script, Unsupported, translate

__all__ = [
    "INSTALL_HINT",
    "SIMULATOR",
    "TCP_DEFAULTS",
    "NotInstalled",
    "Ns2Error",
    "Ns2Results",
    "Script",
    "Unsupported",
    "available",
    "command",
    "metrics",
    "read",
    "rng_seed",
    "run",
    "translate",
]
