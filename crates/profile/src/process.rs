//! What the benches read of a process (`self` or a pid) from `/proc`: its
//! resident memory and the CPU time it has used.

/// Resident memory, in KiB (`VmRSS` of `/proc/<pid>/status`); `None` when
/// the process is gone.
pub fn rss_kib(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// CPU time (user + system) used so far, in µs, from `/proc/<pid>/stat`
/// (clock ticks, 100 per second on Linux); `None` when the process is
/// gone.
pub fn cpu_us(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name (which may hold spaces);
    // utime and stime are the 12th and 13th of them.
    let rest = stat.rsplit_once(')')?.1;
    let mut f = rest.split_whitespace().skip(11);
    let utime: u64 = f.next()?.parse().ok()?;
    let stime: u64 = f.next()?.parse().ok()?;
    Some((utime + stime) * 10_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_memory_and_cpu_time() {
        assert!(rss_kib("self").is_some_and(|k| k > 0));
        assert!(cpu_us("self").is_some());
        assert_eq!(rss_kib("0"), None);
    }
}
