use super::*;
use crate::scenario::parse;

/// `n` sender hosts behind router r1, one receiver behind r2, r1-r2 the bottleneck: the
/// builders' dumbbell shape with `n + 2` links, and a CBR flow from s0.
fn star(n: usize, sample_queues: &str) -> Scenario {
    let mut t = format!(
        "schema_version = 1\n[simulation]\nduration = \"1s\"\nsample_interval = \"100ms\"\n\
         {sample_queues}\n[[nodes]]\nname = \"r1\"\ntype = \"router\"\n\
         [[nodes]]\nname = \"r2\"\ntype = \"router\"\n[[nodes]]\nname = \"d\"\ntype = \"host\"\n"
    );
    for i in 0..n {
        t += &format!("[[nodes]]\nname = \"s{i}\"\ntype = \"host\"\n");
    }
    let link = |a: &str, b: &str| {
        format!(
            "[[links]]\na = \"{a}\"\nb = \"{b}\"\nbandwidth = \"10Mbps\"\ndelay = \"1ms\"\n\
             queue = {{ limit_pkts = 10 }}\n"
        )
    };
    t += &link("r1", "r2");
    t += &link("r2", "d");
    for i in 0..n {
        t += &link(&format!("s{i}"), "r1");
    }
    t += "[[flows]]\nname = \"f\"\ntype = \"cbr\"\nsrc = \"s0\"\ndst = \"d\"\n\
          packet_size = 1000\nrate = \"1Mbps\"\n";
    parse(&t).unwrap()
}

fn sampled_names(s: &Scenario) -> Vec<String> {
    crate::sim::run(s)
        .unwrap()
        .timeseries
        .queues
        .entities()
        .to_vec()
}

#[test]
fn auto_samples_every_queue_up_to_the_threshold_and_the_core_links_beyond() {
    // AUTO_ALL_LINKS - 2 senders: AUTO_ALL_LINKS links, all 2 x 128 queues sampled.
    let small = star(AUTO_ALL_LINKS - 2, "");
    assert_eq!(sampled_names(&small).len(), 2 * AUTO_ALL_LINKS);
    // One more link: only the router-router link's two queues.
    let large = star(AUTO_ALL_LINKS - 1, "");
    assert_eq!(sampled_names(&large), ["r1->r2", "r2->r1"]);
    // Explicit modes override the threshold either way.
    assert_eq!(
        sampled_names(&star(3, "sample_queues = \"core\"")),
        ["r1->r2", "r2->r1"]
    );
    let all = star(AUTO_ALL_LINKS, "sample_queues = \"all\"");
    assert_eq!(sampled_names(&all).len(), 2 * (AUTO_ALL_LINKS + 2));
}

#[test]
fn named_queues_are_sampled_in_channel_order_and_results_are_unchanged() {
    let named = star(3, "sample_queues = [\"s1->r1\", \"r2->d\"]");
    assert_eq!(sampled_names(&named), ["r2->d", "s1->r1"]);
    // Sampling is observation only: the summaries of the same run agree exactly.
    let all = crate::sim::run(&star(3, "sample_queues = \"all\"")).unwrap();
    let some = crate::sim::run(&named).unwrap();
    assert_eq!(format!("{:?}", all.queues), format!("{:?}", some.queues));
    assert_eq!(format!("{:?}", all.flows), format!("{:?}", some.flows));
}

#[test]
fn the_mode_round_trips_and_auto_is_not_written() {
    for (text, mode) in [
        ("", SampleQueues::Auto),
        ("sample_queues = \"all\"", SampleQueues::All),
        ("sample_queues = \"core\"", SampleQueues::Core),
        (
            "sample_queues = [\"r1->r2\"]",
            SampleQueues::Named(vec!["r1->r2".into()]),
        ),
    ] {
        let s = star(1, text);
        assert_eq!(s.simulation.sample_queues, mode);
        let echo = s.to_toml();
        assert_eq!(echo.contains("sample_queues"), !text.is_empty(), "{echo}");
        assert_eq!(parse(&echo).unwrap(), s);
    }
}
