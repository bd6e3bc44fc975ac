//! Man pages and shell completions, rendered from the CLI definition so they never drift.

use std::path::{Path, PathBuf};

use clap_complete::{Generator as _, Shell};

/// Every generated file: its path relative to the repository root, and its bytes.
pub fn generated_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut cmd = crate::cli::command().disable_help_subcommand(true);
    cmd.build();
    walk(&cmd, true, &mut files);
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell, Shell::Elvish] {
        let mut cmd = crate::cli::command();
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "locker", &mut buf);
        files.push((PathBuf::from("completions").join(shell.file_name("locker")), buf));
    }
    files
}

fn walk(cmd: &clap::Command, root: bool, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        walk(sub, false, files);
    }
    let man = clap_mangen::Man::new(cmd.clone())
        .source(concat!("locker ", env!("CARGO_PKG_VERSION")))
        .manual("Locker Manual");
    let mut buf = Vec::new();
    man.render_title(&mut buf).expect("writing to a Vec cannot fail");
    man.render_name_section(&mut buf).expect("writing to a Vec cannot fail");
    man.render_synopsis_section(&mut buf).expect("writing to a Vec cannot fail");
    man.render_description_section(&mut buf).expect("writing to a Vec cannot fail");
    man.render_options_section(&mut buf).expect("writing to a Vec cannot fail");
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut buf).expect("writing to a Vec cannot fail");
    }
    if root {
        buf.extend_from_slice(ROOT_SECTIONS.as_bytes());
    }
    man.render_version_section(&mut buf).expect("writing to a Vec cannot fail");
    files.push((PathBuf::from("man").join(man.get_filename()), buf));
}

const ROOT_SECTIONS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
success; verify found everything intact
.TP
\fB1\fR
a clean "no": verify found tampering
.TP
\fB2\fR
usage error
.TP
\fB3\fR
not found (repository, pad, ticket)
.TP
\fB4\fR
conflict (sealed pad, quota full, inconsistent chain)
.TP
\fB5\fR
unauthorized or forbidden (bad key or ticket, revoked, read lease over)
.TP
\fB6\fR
invalid input (bad envelope, bad JSON, over a size limit)
.TP
\fB7\fR
gone (expired pad)
.TP
\fB8\fR
unavailable (I/O failure, busy store, internal error)
.SH ENVIRONMENT
.TP
\fBLOCKER_DIR\fR
The directory holding \fI.locker/\fR (like \fB\-R\fR).
.TP
\fBLOCKER_WRITE_KEY\fR, \fBLOCKER_TICKET\fR
A pad's write key and a read ticket, so that scripts need not put them on a command line.
.TP
\fBLOCKER_READ_LEASE_SECONDS\fR
How long a read_once ticket reads after its first read (default 600).
.TP
\fBLOCKER_NOW\fR
Pretend the time is this many Unix seconds (for tests).
.TP
\fBNO_COLOR\fR
Never use colour.
.SH FILES
.TP
\fI.locker/config.json\fR
The repository's format, id, creation time and store.
.TP
\fI.locker/locker.db\fR
The SQLite database (WAL mode): journal, pads, blocks, tickets.
.TP
\fI.locker/objects/\fR
Content-addressed blobs too large to keep in the database.
.SH EXAMPLES
.nf
locker init
locker pad create \-\-json > pad.json
PAD=$(jq \-r .pad_id pad.json); export LOCKER_WRITE_KEY=$(jq \-r .write_key pad.json)
locker append "$PAD" envelope.json
locker seal "$PAD"
locker pad read "$PAD" \-\-ticket "$(jq \-r .read_ticket pad.json)"
locker verify
.fi
"#;

/// Writes every generated file under `root`, removing stale pages; returns how many were written.
pub fn write_all(root: &Path) -> std::io::Result<usize> {
    let files = generated_files();
    for dir in ["man", "completions"] {
        let d = root.join(dir);
        std::fs::create_dir_all(&d)?;
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            let rel = Path::new(dir).join(path.file_name().unwrap_or_default());
            if !files.iter().any(|(p, _)| *p == rel) {
                std::fs::remove_file(&path)?;
            }
        }
    }
    for (rel, bytes) in &files {
        std::fs::write(root.join(rel), bytes)?;
    }
    Ok(files.len())
}
