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

/// Check `NPUSCHEMA_MAX_INPUT_BYTES` once, before a command runs: set to something that is
/// not a byte count (`abc`, `-1`, `1e9`), it is an error naming the variable and what it
/// takes, instead of being ignored while a later error says to set it.
///
/// # Errors
///
/// The message to print.
pub fn check_env() -> Result<(), String> {
    match std::env::var_os(MAX_INPUT_ENV) {
        None => Ok(()),
        Some(v) => match v.to_str().map(str::trim).and_then(parse_size) {
            Some(_) => Ok(()),
            None => Err(format!(
                "{MAX_INPUT_ENV}={}: not a byte count; it takes a whole number of bytes, decimal or 0x hex (e.g. {MAX_INPUT_ENV}=536870912 for 512 MiB), or unset it for the default {} MiB",
                v.to_string_lossy(),
                DEFAULT_MAX_INPUT_BYTES >> 20
            )),
        },
    }
}

/// The most bytes a schema file may have: 4 MiB (the largest shipped schema is under 30 KB).
/// A schema is read under this limit of its own, not the input limit, and refused with
/// `schema-too-large` past it (`/dev/zero`, a 2 GiB sparse file, an endless FIFO).
pub const MAX_SCHEMA_BYTES: u64 = 4 << 20;

/// Read a schema file: opened as [`open_input`] opens it, at most [`MAX_SCHEMA_BYTES`],
/// UTF-8.
///
/// # Errors
///
/// One line naming the file, the error's code and what to do.
pub fn read_schema(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let bytes = match read_input(path, MAX_SCHEMA_BYTES, |_| true) {
        Ok(i) => match i {
            Input::Whole(b) | Input::Head(b) => b,
        },
        Err(InputError::TooLarge { size, known, .. }) => {
            return Err(format!(
                "{shown}: schema-too-large: {}{size} bytes, over the schema limit of {MAX_SCHEMA_BYTES} bytes (a schema is YAML text of a few KB; is this the schema?)",
                if known { "" } else { "more than " }
            ));
        }
        Err(e @ InputError::NoWriter) => return Err(format!("{shown}: {e}")),
        Err(InputError::Io(e)) => {
            return Err(format!("{shown}: io-error: cannot read the schema: {e}"));
        }
    };
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{shown}: schema-not-utf8: byte {} is not UTF-8 (a schema is YAML text)",
            e.utf8_error().valid_up_to()
        )
    })
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
    /// A FIFO (named pipe) that nobody writes to: opening it would have blocked forever, so
    /// it is opened without blocking and refused at once.
    NoWriter,
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
            Self::NoWriter => "fifo-no-writer",
            Self::TooLarge { .. } => "file-too-large",
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "{e}"),
            Self::NoWriter => write!(
                f,
                "fifo-no-writer: a FIFO (named pipe) with no writer: nothing to read (start its writer first, or give the file itself)"
            ),
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

/// Open `path` for reading without ever blocking in `open(2)`: it is opened with
/// `O_NONBLOCK`, its type checked on the open descriptor (`fstat`), and a directory is
/// refused. A FIFO is read once without blocking: no writer (end of file at once) is
/// [`InputError::NoWriter`]; otherwise what was read is returned with the file, which is
/// switched back to blocking reads (its writer exists, so the read ends when it does).
///
/// # Errors
///
/// [`InputError::Io`] (missing, unreadable, a directory), [`InputError::NoWriter`].
pub fn open_input(path: &Path) -> Result<(File, fs::Metadata, Vec<u8>), InputError> {
    use std::os::unix::fs::OpenOptionsExt;
    let nonblock = i32::try_from(rustix::fs::OFlags::NONBLOCK.bits()).unwrap_or(0);
    let mut f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(nonblock)
        .open(path)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(InputError::Io(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    let mut first = Vec::new();
    if meta.file_type().is_fifo() {
        let mut buf = vec![0u8; HEAD_BYTES];
        match f.read(&mut buf) {
            Ok(0) => return Err(InputError::NoWriter),
            Ok(n) => first.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(InputError::Io(e)),
        }
    }
    rustix::fs::fcntl_setfl(&f, rustix::fs::OFlags::empty()).map_err(io::Error::from)?;
    Ok((f, meta, first))
}

/// Read `path` in bounded pieces: its head, then, if `need_whole(head)` says so, the rest
/// up to `limit` bytes in all. Opened as [`open_input`] opens it (a FIFO with no writer is
/// refused at once).
///
/// # Errors
///
/// [`InputError::Io`] when it cannot be opened or read, [`InputError::NoWriter`],
/// [`InputError::TooLarge`] when the whole file is needed and is over `limit`.
pub fn read_input(
    path: &Path,
    limit: u64,
    need_whole: impl FnOnce(&[u8]) -> bool,
) -> Result<Input, InputError> {
    let (mut f, meta, mut bytes) = open_input(path)?;
    let more = HEAD_BYTES.saturating_sub(bytes.len());
    bytes.extend(read_up_to(&mut f, more)?);
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

/// A path as one line of text: control characters (a newline, a tab, an escape) are
/// written as escapes (`\n`, `\t`, `\u{1b}`) and a backslash as `\\`, so a file name
/// can never break "one line per file" or move the terminal's cursor; `--json` keeps the
/// exact name.
#[must_use]
pub fn line_path(p: &Path) -> String {
    let s = p.display().to_string();
    if !s.chars().any(|c| c.is_control() || c == '\\') {
        return s;
    }
    s.chars()
        .map(|c| {
            if c.is_control() || c == '\\' {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
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

/// Where an output named `target` is written, by the rule the README states:
///
/// * a name ending in `/` names a directory, not a file: refused;
/// * an existing directory: refused;
/// * a symbolic link is written *through*: the file it points to (its final target, however
///   many links lead there) is replaced, atomically in that file's own directory, and the
///   link is kept, as `cp` and the shell's `>` do; a dangling link (or a loop) is refused.
///
/// Checked before any work is done (`pack` calls it first), and again when the output is
/// created.
///
/// # Errors
///
/// `io-error` naming the output and what to give instead.
pub fn resolve_output(target: &Path) -> Result<PathBuf, OutputError> {
    use std::os::unix::ffi::OsStrExt;
    let err = |message: String| OutputError {
        code: "io-error",
        path: target.to_path_buf(),
        message,
    };
    if target.as_os_str().as_bytes().ends_with(b"/") || target.file_name().is_none() {
        return Err(err(
            "names a directory (it ends in `/` or `..`): give the output file's name".into(),
        ));
    }
    let resolved = match fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(target).map_err(|e| {
            err(format!(
                "is a symbolic link whose target cannot be reached ({e}): give a file name, or make the link point at a file"
            ))
        })?,
        _ => target.to_path_buf(),
    };
    match fs::metadata(&resolved) {
        Ok(m) if m.is_dir() => {
            return Err(err(
                "is a directory: give the output file's name (e.g. DIR/model.npub)".into(),
            ));
        }
        // A FIFO, socket or device: the file would be renamed over it, replacing it with
        // a regular file, never writing into it. Refused, as the README states.
        Ok(m) if !m.is_file() => {
            return Err(OutputError {
                code: "output-not-a-regular-file",
                path: target.to_path_buf(),
                message: "is a FIFO, socket or device: outputs are written to a temporary file and renamed over the target, which would replace it; give a regular file's name".into(),
            });
        }
        _ => {}
    }
    Ok(resolved)
}

/// The temporaries being written now, removed by the signal handler
/// ([`remove_temporaries_on_signal`]).
static LIVE_TEMPS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn live_temps() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// On SIGINT, SIGTERM or SIGHUP, remove every temporary output being written
/// ([`AtomicOutput`]s not yet committed) and exit with 128 + the signal's number, as the
/// default action's status reads in a shell. Installed once by `main`; a signal-hook thread
/// does the work, so nothing runs inside the signal handler itself.
///
/// # Errors
///
/// The handler could not be installed.
pub fn remove_temporaries_on_signal() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // Held until exit: no new temporary is registered, none is committed.
                let live = live_temps();
                for p in live.iter() {
                    let _ = fs::remove_file(p);
                }
                std::process::exit(128 + sig);
            }
        })?;
    Ok(())
}

/// The prefix of this process's temporaries: `.npuschema-<pid>-`, so that a later run can
/// tell a temporary whose writer is gone (killed with SIGKILL, or the machine stopped).
fn temp_prefix() -> String {
    format!(".npuschema-{}-", std::process::id())
}

/// Remove, from `dir`, temporaries that a killed run left (`.npuschema-<pid>-*.tmp` whose
/// process no longer exists), saying so on stderr; name those of an older version
/// (`.npuschema-XXXXXX.tmp`, no process id) without touching them.
pub fn clean_stale_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(rest) = name
            .strip_prefix(".npuschema-")
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let path = dir.join(name);
        match rest.split_once('-') {
            Some((pid, _)) if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) => {
                if pid == std::process::id().to_string()
                    || Path::new("/proc").join(pid).exists()
                    || !Path::new("/proc/self").exists()
                {
                    continue;
                }
                if fs::remove_file(&path).is_ok() {
                    eprintln!(
                        "npuschema: removed {}: a temporary left by an interrupted run (process {pid}, gone)",
                        path.display()
                    );
                }
            }
            _ => eprintln!(
                "npuschema: note: {} looks like a temporary left by an interrupted run of an older npuschema; remove it if no npuschema is running",
                path.display()
            ),
        }
    }
}

/// An output being written: a temporary file next to it, renamed into place by
/// [`AtomicOutput::commit`] and removed if dropped before.
#[derive(Debug)]
pub struct AtomicOutput {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
    _registered: Registered,
}

/// A temporary on the signal handler's list, taken off when dropped (committed or not).
#[derive(Debug)]
struct Registered(PathBuf);

impl Drop for Registered {
    fn drop(&mut self) {
        live_temps().retain(|q| q != &self.0);
    }
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
        let target = &resolve_output(target)?;
        if let Some(input) = inputs.iter().find(|i| same_file(i, target)) {
            return Err(err(
                "output-is-input",
                format!(
                    "is the input {}: refusing to write over it",
                    input.display()
                ),
            ));
        }
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        clean_stale_temporaries(dir);
        let existing = fs::metadata(target).ok();
        let mut live = live_temps();
        let prefix = temp_prefix();
        let tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .permissions(fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| err("io-error", format!("cannot create a temporary file: {e}")))?;
        live.push(tmp.path().to_path_buf());
        drop(live);
        let registered = Registered(tmp.path().to_path_buf());
        if let Some(m) = existing {
            fs::set_permissions(tmp.path(), fs::Permissions::from_mode(m.mode() & 0o7777))
                .map_err(|e| err("io-error", format!("cannot set the mode: {e}")))?;
        }
        Ok(Self {
            tmp,
            target: target.to_path_buf(),
            _registered: registered,
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

    /// Write `bytes` at byte `offset` of the temporary file (it grows to hold them).
    ///
    /// # Errors
    ///
    /// `io-error`.
    pub fn write_all_at(&mut self, bytes: &[u8], offset: u64) -> Result<(), OutputError> {
        use std::os::unix::fs::FileExt;
        self.tmp
            .as_file()
            .write_all_at(bytes, offset)
            .map_err(|e| OutputError {
                code: "io-error",
                path: self.tmp.path().to_path_buf(),
                message: format!("cannot write at byte {offset}: {e}"),
            })
    }

    /// Read `buf.len()` bytes at byte `offset` of the temporary file.
    ///
    /// # Errors
    ///
    /// `io-error`, also when the file ends first.
    pub fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<(), OutputError> {
        use std::os::unix::fs::FileExt;
        self.tmp
            .as_file()
            .read_exact_at(buf, offset)
            .map_err(|e| OutputError {
                code: "io-error",
                path: self.tmp.path().to_path_buf(),
                message: format!("cannot read back at byte {offset}: {e}"),
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
