//! `schedtrace convert`: any input the ingest reads → a Perfetto trace file,
//! streamed (the writer is the reader's event sink) into a temporary file that is
//! renamed over the output only when everything was read and written.

use super::write::{WriteStats, Writer, WriterOptions};
use crate::error::{Error, Result};
use crate::meta::Ingested;
use crate::ReadOptions;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// What a conversion read and wrote.
#[derive(Debug)]
pub struct Converted {
    pub ingested: Ingested,
    pub written: WriteStats,
}

/// Converts `input` (`-` = stdin) to a Perfetto trace at `output` (`-` = stdout), reading it
/// with the run's `read` options.
pub fn convert(
    input: &Path,
    output: &Path,
    opts: WriterOptions,
    read: ReadOptions,
) -> Result<Converted> {
    if output.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let (ingested, written) =
            convert_to(input, BufWriter::new(stdout.lock()), opts, output, read)?;
        return Ok(Converted { ingested, written });
    }
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize()) {
        if a == b {
            return Err(Error::whole("the output would overwrite the input").in_file(output));
        }
    }
    let mut tmp_name = output.as_os_str().to_owned();
    tmp_name.push(".partial");
    let tmp = PathBuf::from(tmp_name);
    let file = File::create(&tmp)
        .map_err(|e| Error::whole(format!("cannot create: {e}")).in_file(&tmp))?;
    let result = convert_to(input, BufWriter::new(file), opts, output, read).and_then(|done| {
        std::fs::rename(&tmp, output).map_err(|e| {
            Error::whole(format!("cannot rename {}: {e}", tmp.display())).in_file(output)
        })?;
        Ok(done)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    let (ingested, written) = result?;
    Ok(Converted { ingested, written })
}

fn convert_to<W: Write>(
    input: &Path,
    out: W,
    opts: WriterOptions,
    output: &Path,
    read: ReadOptions,
) -> Result<(Ingested, WriteStats)> {
    let mut writer = Writer::new(out, opts);
    let ingested = crate::read_path_opts(input, &mut writer, &crate::Progress::new(), read)?;
    let (mut out, written) = writer
        .finish(&ingested.meta)
        .map_err(|e| Error::whole(format!("cannot write: {e}")).in_file(output))?;
    out.flush()
        .map_err(|e| Error::whole(format!("cannot write: {e}")).in_file(output))?;
    Ok((ingested, written))
}
