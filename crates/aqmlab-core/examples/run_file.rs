fn main() {
    let path = std::env::args().nth(1).expect("scenario file");
    let text = std::fs::read_to_string(path).unwrap();
    let sc = aqmlab_core::load(&text).unwrap();
    let r = aqmlab_core::run(&sc).unwrap();
    println!("{} queues", r.queues.len());
}
