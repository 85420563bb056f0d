// Times the Rust plist crate on the files PeerRatios writes: read binary, write XML,
// write binary, read XML; prints the best of RUNS for each, in milliseconds, one per line.
// Usage: rust-plist-peer BINARY XML RUNS
use std::time::Instant;

fn best<F: FnMut()>(runs: usize, mut body: F) -> f64 {
    let mut fastest = f64::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        body();
        fastest = fastest.min(start.elapsed().as_secs_f64() * 1000.0);
    }
    fastest
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let binary = std::fs::read(&arguments[1]).expect("binary file");
    let xml = std::fs::read(&arguments[2]).expect("XML file");
    let runs: usize = arguments[3].parse().expect("runs");
    let value = plist::Value::from_reader(std::io::Cursor::new(&binary)).expect("read binary");

    println!("{}", best(runs, || {
        let read = plist::Value::from_reader(std::io::Cursor::new(&binary)).unwrap();
        std::hint::black_box(read);
    }));
    println!("{}", best(runs, || {
        let mut out = Vec::new();
        value.to_writer_xml(&mut out).unwrap();
        std::hint::black_box(out);
    }));
    println!("{}", best(runs, || {
        let mut out = Vec::new();
        value.to_writer_binary(&mut out).unwrap();
        std::hint::black_box(out);
    }));
    println!("{}", best(runs, || {
        let read = plist::Value::from_reader_xml(std::io::Cursor::new(&xml)).unwrap();
        std::hint::black_box(read);
    }));
}
