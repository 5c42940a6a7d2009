//! Bounded input, atomic output and a closed stdout, shared by every subcommand.
//!
//! * **Input.** A file is read in bounded pieces: first its head ([`HEAD_BYTES`]), which is
//!   enough for a caller to refuse a file whose magic names no format it takes; then the
//!   rest, but never more than the input limit ([`max_input_bytes`]: 256 MiB unless
//!   `NPUSCHEMA_MAX_INPUT_BYTES` says otherwise). A regular file whose size is over the limit
//!   is refused before any of it is read past the head; a stream (`/dev/zero`, a pipe) once
//!   the limit is passed. Peak memory is therefore at most the limit, whatever the file.
//! * **Output.** [`AtomicOutput`] writes to a uniquely named temporary file created
//!   exclusively (`O_EXCL`) in the output's directory, removed on every failure path (it is
//!   removed when dropped), and renamed over the output only by [`AtomicOutput::commit`].
//!   The name does not derive from the output's (a 255-byte output name works); a file that
//!   is being replaced keeps its permission bits; writing over one of the command's inputs
//!   is refused (same device and inode, so links and `./x` spellings are caught).
//! * **Stdout.** [`stdout_error`] turns a closed pipe (`npuschema inspect X | head -1`) into
//!   a quiet exit instead of a panic.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Bytes read before deciding whether the whole file is needed: larger than any header of
/// the formats this tool knows (NPU1 32 bytes, the VPMN prefix 12).
pub const HEAD_BYTES: usize = 4096;

/// The default input limit: 256 MiB, far above any real model container or Vela output
/// (the largest in the shared corpus is about 1 MB).
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 20;

/// The environment variable that overrides [`DEFAULT_MAX_INPUT_BYTES`] (bytes, decimal or
/// `0x` hex).
pub const MAX_INPUT_ENV: &str = "NPUSCHEMA_MAX_INPUT_BYTES";

/// The input limit in force: `NPUSCHEMA_MAX_INPUT_BYTES` when set to a number, else
/// [`DEFAULT_MAX_INPUT_BYTES`].
#[must_use]
pub fn max_input_bytes() -> u64 {
    std::env::var(MAX_INPUT_ENV)
        .ok()
        .and_then(|s| parse_size(s.trim()))
        .unwrap_or(DEFAULT_MAX_INPUT_BYTES)
}

fn parse_size(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Why an input was not read.
#[derive(Debug)]
pub enum InputError {
    /// The operating system's error (missing, unreadable, a directory...).
    Io(io::Error),
    /// Larger than the limit: `size` is the file's size, or for a stream the limit, which it
    /// has more bytes than (`known` false).
    TooLarge {
        /// The file's size, or (a stream) the limit.
        size: u64,
        /// Whether `size` is the real size (a regular file) or a lower bound (a stream).
        known: bool,
        /// The limit in force.
        limit: u64,
    },
}

impl InputError {
    /// A stable code: `io-error` or `file-too-large`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Io(_) => "io-error",
            Self::TooLarge { .. } => "file-too-large",
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "{e}"),
            Self::TooLarge { size, known, limit } => write!(
                f,
                "file-too-large: {}{size} bytes, over the input limit of {limit} bytes (set {MAX_INPUT_ENV} to raise it)",
                if *known { "" } else { "more than " }
            ),
        }
    }
}

impl From<io::Error> for InputError {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// What [`read_input`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// The whole file.
    Whole(Vec<u8>),
    /// Only its first [`HEAD_BYTES`] (the file is longer), because the caller said the
    /// head decides.
    Head(Vec<u8>),
}

impl Input {
    /// The bytes read.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        match self {
            Self::Whole(b) | Self::Head(b) => b,
        }
    }
}

/// Read up to `want` bytes (fewer only at the end of the file).
fn read_up_to(f: &mut impl Read, want: usize) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    f.take(want as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Read `path` in bounded pieces: its head, then, if `need_whole(head)` says so, the rest
/// up to `limit` bytes in all.
///
/// # Errors
///
/// [`InputError::Io`] when it cannot be opened or read, [`InputError::TooLarge`] when the
/// whole file is needed and is over `limit`.
pub fn read_input(
    path: &Path,
    limit: u64,
    need_whole: impl FnOnce(&[u8]) -> bool,
) -> Result<Input, InputError> {
    let mut f = File::open(path)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(InputError::Io(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    let mut bytes = read_up_to(&mut f, HEAD_BYTES)?;
    if bytes.len() < HEAD_BYTES {
        if bytes.len() as u64 > limit && need_whole(&bytes) {
            return Err(InputError::TooLarge {
                size: bytes.len() as u64,
                known: true,
                limit,
            });
        }
        return Ok(Input::Whole(bytes));
    }
    if !need_whole(&bytes) {
        return Ok(Input::Head(bytes));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(InputError::TooLarge {
            size: meta.len(),
            known: true,
            limit,
        });
    }
    if meta.is_file() {
        bytes.reserve(
            usize::try_from(meta.len())
                .unwrap_or(0)
                .saturating_sub(HEAD_BYTES),
        );
    }
    // One byte more than the limit allows tells a stream that is too long.
    let room = limit.saturating_add(1).saturating_sub(bytes.len() as u64);
    f.take(room).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            size: limit,
            known: false,
            limit,
        });
    }
    Ok(Input::Whole(bytes))
}

/// Read the whole of `path`, at most `limit` bytes.
///
/// # Errors
///
/// As [`read_input`].
pub fn read_all(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    match read_input(path, limit, |_| true)? {
        Input::Whole(b) | Input::Head(b) => Ok(b),
    }
}

/// What kind of file a metadata says this is, for messages about skipped files.
#[must_use]
pub fn kind_name(ft: fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_file() {
        "a regular file"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}

/// Whether `a` and `b` name the same existing file (device and inode).
#[must_use]
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Why an output could not be written.
#[derive(Debug)]
pub struct OutputError {
    /// `io-error`, `output-is-input` or `output-replaced`.
    pub code: &'static str,
    /// The path concerned.
    pub path: PathBuf,
    /// What happened.
    pub message: String,
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.code,
            self.path.display(),
            self.message
        )
    }
}

impl std::error::Error for OutputError {}

/// An output being written: a temporary file next to it, renamed into place by
/// [`AtomicOutput::commit`] and removed if dropped before.
#[derive(Debug)]
pub struct AtomicOutput {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
}

impl AtomicOutput {
    /// Start writing `target`. Refused (`output-is-input`) when `target` is one of `inputs`.
    /// The temporary file is created exclusively in `target`'s directory, with the mode of
    /// the file it will replace, or the mode a new file gets (0666 less the umask).
    ///
    /// # Errors
    ///
    /// `output-is-input`, or `io-error` when the temporary file cannot be created.
    pub fn create(target: &Path, inputs: &[&Path]) -> Result<Self, OutputError> {
        let err = |code, message: String| OutputError {
            code,
            path: target.to_path_buf(),
            message,
        };
        if let Some(input) = inputs.iter().find(|i| same_file(i, target)) {
            return Err(err(
                "output-is-input",
                format!(
                    "is the input {}: refusing to write over it",
                    input.display()
                ),
            ));
        }
        if target.file_name().is_none() {
            return Err(err("io-error", "not a file name".into()));
        }
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let existing = fs::metadata(target).ok();
        if existing.as_ref().is_some_and(fs::Metadata::is_dir) {
            return Err(err("io-error", "is a directory".into()));
        }
        let tmp = tempfile::Builder::new()
            .prefix(".npuschema-")
            .suffix(".tmp")
            .permissions(fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| err("io-error", format!("cannot create a temporary file: {e}")))?;
        if let Some(m) = existing {
            fs::set_permissions(tmp.path(), fs::Permissions::from_mode(m.mode() & 0o7777))
                .map_err(|e| err("io-error", format!("cannot set the mode: {e}")))?;
        }
        Ok(Self {
            tmp,
            target: target.to_path_buf(),
        })
    }

    /// Where the bytes are until [`AtomicOutput::commit`].
    #[must_use]
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// Append `bytes`.
    ///
    /// # Errors
    ///
    /// `io-error`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), OutputError> {
        self.tmp.write_all(bytes).map_err(|e| OutputError {
            code: "io-error",
            path: self.tmp.path().to_path_buf(),
            message: format!("cannot write: {e}"),
        })
    }

    /// Flush to disk and rename over the target. Afterwards, if the target is no longer
    /// this file (another writer renamed over it in between), say so (`output-replaced`)
    /// instead of reporting a success that is not on disk.
    ///
    /// # Errors
    ///
    /// `io-error` when syncing or renaming fails (the temporary file is removed),
    /// `output-replaced` as above.
    pub fn commit(self) -> Result<(), OutputError> {
        let target = self.target;
        let io = |what: &str, e: io::Error| OutputError {
            code: "io-error",
            path: target.clone(),
            message: format!("{what}: {e}"),
        };
        self.tmp
            .as_file()
            .sync_all()
            .map_err(|e| io("cannot sync", e))?;
        let file = self
            .tmp
            .persist(&target)
            .map_err(|e| io("cannot rename into place", e.error))?;
        let ours = file.metadata().map_err(|e| io("cannot stat", e))?;
        match fs::metadata(&target) {
            Ok(now) if now.dev() == ours.dev() && now.ino() == ours.ino() => Ok(()),
            Ok(_) => Err(OutputError {
                code: "output-replaced",
                path: target.clone(),
                message: "another writer replaced it right after this one wrote it".into(),
            }),
            Err(e) => Err(io("gone right after it was written", e)),
        }
    }
}

/// Write `bytes` to `target` through an [`AtomicOutput`].
///
/// # Errors
///
/// As [`AtomicOutput::create`], [`AtomicOutput::write_all`] and [`AtomicOutput::commit`].
pub fn write_atomic(target: &Path, bytes: &[u8], inputs: &[&Path]) -> Result<(), OutputError> {
    let mut out = AtomicOutput::create(target, inputs)?;
    out.write_all(bytes)?;
    out.commit()
}

/// Write `text` to stdout and flush.
///
/// # Errors
///
/// The write's error (a closed pipe is [`io::ErrorKind::BrokenPipe`]).
pub fn print(text: impl AsRef<[u8]>) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_ref())?;
    out.flush()
}

/// The exit status for a failed write to stdout: a closed pipe (the reader has what it
/// wanted, as with `| head`) ends the command quietly with `ok`; any other error is
/// reported and is exit 2.
#[must_use]
pub fn stdout_error(cmd: &str, e: &io::Error, ok: ExitCode) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        ok
    } else {
        eprintln!("npuschema {cmd}: writing output: {e}");
        ExitCode::from(2)
    }
}

/// [`print`], then `code`; on failure, [`stdout_error`].
#[must_use]
pub fn print_then(cmd: &str, text: impl AsRef<[u8]>, code: ExitCode) -> ExitCode {
    match print(text) {
        Ok(()) => code,
        Err(e) => stdout_error(cmd, &e, code),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("npuschema-io-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_stream_is_refused_at_the_limit_and_a_head_is_enough() {
        // /dev/zero never ends: whole is refused once past the limit, in bounded memory.
        let dev = Path::new("/dev/zero");
        match read_input(dev, 1 << 20, |_| true) {
            Err(InputError::TooLarge { size, known, limit }) => {
                assert_eq!((size, known, limit), (1 << 20, false, 1 << 20));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            read_input(dev, 1 << 20, |_| false).unwrap(),
            Input::Head(vec![0; HEAD_BYTES])
        );
    }

    #[test]
    fn a_large_regular_file_is_refused_before_it_is_read() {
        let d = scratch("large");
        let p = d.join("big");
        let f = File::create(&p).unwrap();
        f.set_len(5 << 30).unwrap(); // sparse: 5 GiB that take no disk
        drop(f);
        match read_input(&p, 1 << 20, |_| true) {
            Err(InputError::TooLarge { size, known, .. }) => {
                assert_eq!((size, known), (5 << 30, true));
            }
            other => panic!("{other:?}"),
        }
        fs::write(&p, [1u8; 10]).unwrap();
        assert_eq!(read_all(&p, 10).unwrap(), vec![1u8; 10]);
        fs::write(&p, vec![1u8; HEAD_BYTES + 11]).unwrap();
        assert!(matches!(
            read_all(&p, HEAD_BYTES as u64 + 10),
            Err(InputError::TooLarge { known: true, .. })
        ));
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn output_is_atomic_unique_keeps_its_mode_and_never_overwrites_an_input() {
        let d = scratch("out");
        let target = d.join("out.npub");
        // A user's file named like the old fixed temporary is left alone.
        let old_tmp = d.join("out.npub.tmp");
        fs::write(&old_tmp, b"mine").unwrap();
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&target, b"new", &[]).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read(&old_tmp).unwrap(), b"mine");
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);

        // Dropped before commit: nothing is left, the target is untouched.
        let mut w = AtomicOutput::create(&target, &[]).unwrap();
        w.write_all(b"partial").unwrap();
        let tmp = w.temp_path().to_path_buf();
        assert!(tmp.exists());
        drop(w);
        assert!(!tmp.exists());
        assert_eq!(fs::read(&target).unwrap(), b"new");

        // The input, even spelled differently, is refused.
        let alias = d.join(".").join("out.npub");
        let e = write_atomic(&alias, b"x", &[&target]).unwrap_err();
        assert_eq!(e.code, "output-is-input");
        assert_eq!(fs::read(&target).unwrap(), b"new");

        // A 255-byte name (the longest most file systems take) works.
        let long = d.join("n".repeat(250) + ".npub");
        write_atomic(&long, b"long", &[]).unwrap();
        assert_eq!(fs::read(&long).unwrap(), b"long");
        let left: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp") && n != "out.npub.tmp")
            .collect();
        assert!(left.is_empty(), "{left:?}");
        fs::remove_dir_all(d).unwrap();
    }
}
