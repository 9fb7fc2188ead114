//! schedviz captures (a folder, a tar, a tar.gz) built from a real capture: the EEVDF 6.18
//! pipe_pinned trace.dat's own CPU pages as `traces/cpuN`, that kernel's tracefs format files as
//! `formats/`, a sysfs-style `topology/`. Read as a capture they give the events the trace.dat
//! gives.

use ingest::tracedat::layout::CpuSource;
use ingest::{Event, EventKind, Format};
use std::path::{Path, PathBuf};

const TRACE: &str = "eevdf-6.18-host/pipe_pinned/trace.v7-nocomp.dat.xz";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedviz-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn put(path: PathBuf, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Lays out a schedviz capture of the trace.dat `dat` in `dir`, the way schedviz's `trace.sh`
/// saves one; returns the number of CPUs.
fn capture_from(dat: &[u8], dir: &Path) -> usize {
    let layout = ingest::tracedat::v7::parse(dat).unwrap();
    assert_eq!(
        layout.options.ts_offset, 0,
        "the trace's times are the raw clock's"
    );
    let formats = fixtures::file("kernel-6.18-formats");
    put(dir.join("metadata.textproto"), b"trace_type: FTRACE\n");
    put(
        dir.join("formats/header_page"),
        &std::fs::read(formats.join("header_page")).unwrap(),
    );
    for entry in std::fs::read_dir(&formats).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(event) = name.strip_suffix(".format") else {
            continue;
        };
        let (system, event) = event.split_once('_').unwrap();
        put(
            dir.join(format!("formats/{system}/{event}/format")),
            &std::fs::read(formats.join(&name)).unwrap(),
        );
    }
    for cpu in &layout.cpus {
        let CpuSource::Raw { bytes, .. } = cpu.source else {
            panic!("an uncompressed trace.dat has raw pages");
        };
        put(dir.join(format!("traces/cpu{}", cpu.cpu)), bytes);
    }
    // Two CPUs, each its own core, one package, one node.
    for cpu in 0..2 {
        let t = dir.join(format!("topology/node0/cpu{cpu}/topology"));
        put(t.join("core_id"), format!("{cpu}\n").as_bytes());
        put(t.join("physical_package_id"), b"0\n");
        put(
            t.join("thread_siblings_list"),
            format!("{cpu}\n").as_bytes(),
        );
        put(t.join("core_siblings_list"), b"0-1\n");
    }
    layout.cpus.len()
}

/// Events but the task names of the saved cmdlines (a capture has none) and the `print`
/// markers (the kernel's saved formats are the sched ones: a capture of that kernel's
/// trace_pipe_raw with prints enabled would have saved ftrace/print too).
fn events(path: &Path) -> (ingest::Ingested, Vec<Event>) {
    let mut events = Vec::new();
    let got = ingest::read_path(path, &mut |e: &Event| {
        if !matches!(e.kind, EventKind::TaskName { .. } | EventKind::Print { .. }) {
            events.push(*e)
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    (got, events)
}

#[test]
fn a_capture_folder_tar_and_tar_gz_read_as_the_trace_dat() {
    let source = fixtures::trace(TRACE);
    let dat = ingest::source::load(&source).unwrap();
    let dir = scratch("folder");
    let root = dir.join("capture");
    let cpus = capture_from(&dat, &root);
    let plain = dir.join("trace.dat");
    std::fs::write(&plain, &*dat).unwrap();
    let (want_meta, mut want) = events(&plain);
    // The trace.dat's markers are the records whose format the capture lacks.
    let prints = want_meta.stats.events["print"];
    want.sort_by_key(|e| (e.ts, e.cpu));
    assert!(want.len() > 10_000, "{}", want.len());

    let tar_path = dir.join("trace.tar");
    {
        let mut tar = tar::Builder::new(std::fs::File::create(&tar_path).unwrap());
        tar.append_dir_all(".", &root).unwrap();
        tar.finish().unwrap();
    }
    let gz_path = dir.join("trace.tar.gz");
    {
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz_path).unwrap(),
            flate2::Compression::fast(),
        );
        std::io::copy(&mut std::fs::File::open(&tar_path).unwrap(), &mut gz).unwrap();
        gz.finish().unwrap();
    }
    for path in [&root, &tar_path, &gz_path] {
        let (got_meta, mut got) = events(path);
        got.sort_by_key(|e| (e.ts, e.cpu));
        let what = path.display();
        assert_eq!(got_meta.meta.format, Some(Format::SchedViz), "{what}");
        assert_eq!(got_meta.meta.cpus, Some(cpus as u32), "{what}");
        assert_eq!(got.len(), want.len(), "{what}");
        assert!(got == want, "{what}: the events differ");
        let mut sched = want_meta.stats.events.clone();
        sched.remove("print");
        assert_eq!(got_meta.stats.events, sched, "{what}");
        assert_eq!(
            got_meta.stats.rejected.get("unknown event id"),
            Some(&prints),
            "{what}"
        );
        assert!(got_meta.stats.skipped.is_empty(), "{what}");
        let topo = got_meta.meta.topology.as_ref().unwrap();
        assert_eq!(topo.cores, vec![vec![0], vec![1]], "{what}");
        assert_eq!(topo.packages, vec![vec![0, 1]], "{what}");
        assert_eq!(topo.nodes, vec![(0, vec![0, 1])], "{what}");
    }
}

#[test]
fn a_tar_that_is_no_capture_says_so() {
    let dir = scratch("notacapture");
    let tar_path = dir.join("other.tar");
    {
        let mut tar = tar::Builder::new(std::fs::File::create(&tar_path).unwrap());
        let mut h = tar::Header::new_gnu();
        h.set_size(5);
        h.set_cksum();
        tar.append_data(&mut h, "notes.txt", &b"hello"[..]).unwrap();
        tar.finish().unwrap();
    }
    let e = ingest::read_path(&tar_path, &mut |_: &Event| {}).unwrap_err();
    assert!(
        e.to_string()
            .contains("a tar archive that is not a schedviz capture (no traces/cpuN in it)"),
        "{e}"
    );
}
