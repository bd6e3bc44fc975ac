//! The standard `process_*` metrics, read from `/proc/self` at each scrape (Linux; on other
//! systems they are left out), and the free space of the file system a repository is on.

use std::path::Path;

use super::metrics::Exposition;

/// Clock ticks per second in `/proc` (Linux's `USER_HZ`, 100 on every architecture).
const TICKS: f64 = 100.0;

/// What `/proc/self/stat` and `/proc/self/status` say of this process.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sample {
    cpu_seconds: f64,
    start_time_seconds: f64,
    threads: f64,
}

/// Parses `/proc/self/stat` (fields after the parenthesised command name, which may hold
/// spaces), given the boot time in Unix seconds.
fn parse_stat(stat: &str, boot: f64) -> Option<Sample> {
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state); field N of proc(5) is f[N - 3].
    let num = |n: usize| f.get(n - 3).and_then(|v| v.parse::<f64>().ok());
    Some(Sample {
        cpu_seconds: (num(14)? + num(15)?) / TICKS,
        threads: num(20)?,
        start_time_seconds: boot + num(22)? / TICKS,
    })
}

/// A `kB` line of `/proc/self/status` (`VmRSS:   1234 kB`), in bytes.
fn status_bytes(status: &str, key: &str) -> Option<f64> {
    let line = status.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))?;
    let kb: f64 = line.split_whitespace().next()?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The soft limit on open files, from `/proc/self/limits`.
fn max_fds(limits: &str) -> Option<f64> {
    let line = limits.lines().find_map(|l| l.strip_prefix("Max open files"))?;
    line.split_whitespace().next()?.parse().ok()
}

fn boot_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines().find_map(|l| l.strip_prefix("btime ")).and_then(|v| v.trim().parse().ok())
}

/// Writes the `process_*` families, as far as this system tells.
pub fn write(out: &mut Exposition) {
    let stat = std::fs::read_to_string("/proc/self/stat").ok();
    if let Some(s) = stat.as_deref().and_then(|s| parse_stat(s, boot_time().unwrap_or(0.0))) {
        out.counter(
            "process_cpu_seconds_total",
            "Total user and system CPU time spent in seconds.",
            s.cpu_seconds,
        );
        out.gauge(
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.",
            s.start_time_seconds,
        );
        out.gauge("process_threads", "Number of OS threads in the process.", s.threads);
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(v) = status_bytes(&status, "VmRSS") {
        out.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", v);
    }
    if let Some(v) = status_bytes(&status, "VmSize") {
        out.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", v);
    }
    if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
        out.gauge("process_open_fds", "Number of open file descriptors.", dir.count() as f64);
    }
    if let Some(n) = std::fs::read_to_string("/proc/self/limits").ok().as_deref().and_then(max_fds)
    {
        out.gauge("process_max_fds", "Maximum number of open file descriptors.", n);
    }
}

/// Pretends the file system holds `FREE/TOTAL` bytes, for tests and demos whose output must
/// not follow the free space of the machine they run on.
pub const DISK_SPACE_ENV: &str = "LOCKER_DISK_SPACE";

/// What [`disk`] found: the free and total bytes of a file system (free as an unprivileged
/// user sees it, as `df` says "Available").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disk {
    pub free: u64,
    pub total: u64,
    /// The figures are `LOCKER_DISK_SPACE`'s, not the file system's.
    pub pretended: bool,
}

/// What `LOCKER_DISK_SPACE` pretends, if it is set; an error says how it is malformed (every
/// command refuses to start then, as with a malformed `LOCKER_NOW`).
pub fn pretended_disk() -> Result<Option<Disk>, String> {
    std::env::var_os(DISK_SPACE_ENV).map(|v| pretended(&v.to_string_lossy())).transpose()
}

/// The free and total bytes of the file system `path` is on, or what `LOCKER_DISK_SPACE`
/// pretends; an error says why neither can be told. `locker doctor` and the server's
/// `locker_disk_*` metrics both read it here.
pub fn disk(path: &Path) -> Result<Disk, String> {
    if let Some(d) = pretended_disk()? {
        return Ok(d);
    }
    let st = rustix::fs::statvfs(path).map_err(|e| format!("cannot tell the free space: {e}"))?;
    let unit = st.f_frsize.max(1);
    Ok(Disk {
        free: st.f_bavail.saturating_mul(unit),
        total: st.f_blocks.saturating_mul(unit),
        pretended: false,
    })
}

/// Parses `LOCKER_DISK_SPACE`: `FREE/TOTAL` in bytes, free no more than the total.
fn pretended(v: &str) -> Result<Disk, String> {
    let bad = || {
        format!("{DISK_SPACE_ENV} must be FREE/TOTAL in bytes (free at most the total), got `{v}`")
    };
    let (free, total) = v.split_once('/').ok_or_else(bad)?;
    let free: u64 = free.trim().parse().map_err(|_| bad())?;
    let total: u64 = total.trim().parse().map_err(|_| bad())?;
    if total == 0 || free > total {
        return Err(bad());
    }
    Ok(Disk { free, total, pretended: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_read_past_a_command_name_with_spaces() {
        let stat = "4242 (locker (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 \
                    7 0 1000 123456789 300 18446744073709551615";
        let s = parse_stat(stat, 1_700_000_000.0).unwrap();
        assert_eq!(s.cpu_seconds, 3.0);
        assert_eq!(s.threads, 7.0);
        assert_eq!(s.start_time_seconds, 1_700_000_010.0);
        assert_eq!(parse_stat("1 (x) S 1 2", 0.0), None);
        assert_eq!(parse_stat("garbage", 0.0), None);
    }

    #[test]
    fn the_pretended_disk_is_free_slash_total_bytes() {
        assert_eq!(pretended("50/200"), Ok(Disk { free: 50, total: 200, pretended: true }));
        assert_eq!(pretended(" 0 / 1 ").map(|d| (d.free, d.total)), Ok((0, 1)));
        for bad in ["", "50", "50/", "/200", "-1/200", "300/200", "1/0", "5G/10G", "1/2/3"] {
            let e = pretended(bad).unwrap_err();
            assert!(e.contains("LOCKER_DISK_SPACE must be FREE/TOTAL"), "{bad}: {e}");
        }
    }

    #[test]
    fn status_sizes_are_read_in_bytes() {
        let status = "Name:\tlocker\nVmSize:\t  10240 kB\nVmRSS:\t    2048 kB\n";
        assert_eq!(status_bytes(status, "VmRSS"), Some(2048.0 * 1024.0));
        assert_eq!(status_bytes(status, "VmSize"), Some(10240.0 * 1024.0));
        assert_eq!(status_bytes(status, "VmSwap"), None);
    }

    #[test]
    fn the_soft_limit_on_open_files_is_read() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            1024                 524288               files\n";
        assert_eq!(max_fds(limits), Some(1024.0));
        assert_eq!(max_fds("nothing"), None);
    }

    #[test]
    fn the_real_process_and_disk_are_read() {
        let mut out = Exposition::default();
        write(&mut out);
        let text = out.into_string();
        for family in
            ["process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds "]
        {
            assert!(text.contains(family), "{family} in {text}");
        }
        if std::env::var_os(DISK_SPACE_ENV).is_none() {
            let d = disk(Path::new(".")).unwrap();
            assert!(d.total > 0 && d.free <= d.total && !d.pretended);
            assert!(disk(Path::new("/no/such/dir")).unwrap_err().starts_with("cannot tell"));
        }
    }
}
