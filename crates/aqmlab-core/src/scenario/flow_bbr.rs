//! The flow fields that cannot apply with a rate-based controller (BBR): it always paces,
//! and sets the window in recovery itself (Linux's `cong_control` replaces PRR).

use super::flow_tcp::{Recovery, TcpSpec};
use crate::check::Problems;
use crate::tcp::congestion::CongestionSpec;

pub(super) fn check(f: &TcpSpec, cc: &CongestionSpec, p: &str, pr: &mut Problems) {
    if cc.kind() != "bbr" {
        return;
    }
    if f.pacing == Some(false) {
        pr.err(
            format!("{p}.pacing"),
            false,
            "BBR always paces (congestion type = \"bbr\"): remove the field or set it true",
        );
    }
    if let Some(r) = f
        .recovery
        .filter(|&r| r != Recovery::Classic)
        .map(Recovery::name)
    {
        pr.err(
            format!("{p}.recovery"),
            format!("\"{r}\""),
            "BBR sets the window in recovery itself (congestion type = \"bbr\"): \
             recovery must be \"classic\"",
        );
    }
}
