//! The repository map's ranking at the Linux tree's scale, timed: a generated graph of the
//! kernel's size (60,000 files, each defining 10 names and referencing 120 distinct names
//! drawn with a strong skew, so a few names are used everywhere and most by a few files),
//! ranked and cut to an 8,000-character map, plain and focused on one file. Prints the medians.
//!
//!     cargo run --release --example rank_scale -- [files] [rounds]

use std::ffi::OsString;
use std::io::Write;
use std::time::Instant;

use ripsight_core::outline::graph::{GraphDefinition, GraphFile, SymbolGraph};
use ripsight_core::outline::map::{RepoMapOptions, map_of};
use ripsight_core::outline::{Language, SymbolKind};

/// A small deterministic generator (xorshift), so every run ranks the same graph.
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A name id skewed toward small ids: the cube of a uniform draw, scaled.
    fn skewed(&mut self, names: u64) -> u32 {
        let uniform = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((uniform * uniform * uniform) * names as f64) as u32
    }
}

fn graph(files: usize) -> SymbolGraph {
    const DEFINED: usize = 10;
    const REFERENCED: usize = 120;
    let names_count = files * DEFINED;
    let names: Vec<String> = (0..names_count).map(|i| format!("name_{i}")).collect();
    let mut numbers = Numbers(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(files);
    for f in 0..files {
        let definitions = (0..DEFINED)
            .map(|d| GraphDefinition {
                // Name i is defined by file i / DEFINED; a few names by two files.
                name: ((f * DEFINED + d) % names_count) as u32,
                kind: SymbolKind::Function,
                line: 10 * (d as u32 + 1),
                end_line: 10 * (d as u32 + 1) + 8,
                depth: 0,
            })
            .collect();
        let mut references: Vec<(u32, u32)> = (0..REFERENCED)
            .map(|_| {
                (
                    numbers.skewed(names_count as u64),
                    1 + (numbers.next() % 4) as u32,
                )
            })
            .collect();
        references.sort_unstable();
        references.dedup_by_key(|r| r.0);
        out.push(GraphFile {
            path: OsString::from(format!("dir{:03}/file{f:06}.c", f % 700)),
            language: Language::C,
            definitions,
            references,
            bound_start: Vec::new(),
            bound: Vec::new(),
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    SymbolGraph {
        names,
        files: out,
        bound: false,
    }
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut args = std::env::args().skip(1);
    let files: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(60_000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let started = Instant::now();
    let graph = graph(files);
    let entries: usize = graph.files.iter().map(|f| f.references.len()).sum();
    writeln!(
        out,
        "graph: {} files, {} names, {entries} (file, name) uses; generated in {:.0} ms",
        graph.files.len(),
        graph.names.len(),
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    let focused = RepoMapOptions {
        max_chars: 8_000,
        paths: vec![graph.files[graph.files.len() / 2].path.clone()],
        ..RepoMapOptions::default()
    };
    let plain = RepoMapOptions {
        max_chars: 8_000,
        ..RepoMapOptions::default()
    };
    for (label, options) in [("plain", &plain), ("focused on one file", &focused)] {
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..rounds {
            let started = Instant::now();
            let out = map_of(&graph, None, options);
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            last = Some(out);
        }
        if let Some(map) = last {
            writeln!(
                out,
                "{label}: median {:.1} ms of {rounds} ({} iterations; {} files shown, {} chars)",
                median(times),
                map.iterations,
                map.files.len(),
                map.chars
            )?;
        }
    }
    Ok(())
}
