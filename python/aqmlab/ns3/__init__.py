"""ns-3.44 as a second simulator for aqmlab's scenarios (docs/ns3.md).

    from aqmlab import ns3
    res = ns3.run(scenario)            # ns-3.44's queues and flows tables
    ns3.translate(aqmlab.canonical(s)) # the spec the driver built
    ns3.run_spec(spec)                 # a spec run as it is

ns-3 runs in its own Python environment (the PyPI package ``ns3==3.44.post0``; `make ns3`
creates one in .ns3-venv, or set AQMLAB_NS3_PYTHON); without it ``NotInstalled`` says
how to install it. A scenario that uses what ns-3.44 cannot run exactly raises
``Unsupported`` with the list of what is not translated.
"""

from aqmlab.ns3.run import (
    INSTALL_HINT,
    NotInstalled,
    Ns3Error,
    Ns3Results,
    available,
    python,
    run,
    run_spec,
)
from aqmlab.ns3.translate import SIMULATOR, Unsupported, translate

__all__ = [
    "INSTALL_HINT",
    "SIMULATOR",
    "NotInstalled",
    "Ns3Error",
    "Ns3Results",
    "Unsupported",
    "available",
    "python",
    "run",
    "run_spec",
    "translate",
]
