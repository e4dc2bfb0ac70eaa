//! `perf record` attached to a process for one measured run of a bench
//! (`mafia-referee-bench --profile`, `gateway-bench --profile`), written out
//! as folded stacks and an SVG flame graph (inferno), so whoever picks up a
//! performance figure starts from where the time goes; and what the
//! benches read of a process (`process.rs`).

pub mod process;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("starting perf record (is perf installed?): {0}")]
    Start(std::io::Error),
    #[error("perf: {0}")]
    Perf(std::io::Error),
    #[error("writing the profile: {0}")]
    Write(std::io::Error),
    #[error("folding the stacks: {0}")]
    Fold(String),
}

/// A recording in progress; [`Profile::finish`] stops it and writes it.
pub struct Profile {
    child: Child,
    data: PathBuf,
    title: String,
}

impl Profile {
    /// Starts sampling `pid` into `DIR/NAME.perf.data`. DWARF call graphs:
    /// release builds keep no frame pointers, so `-g` alone sees one frame
    /// deep.
    pub fn start(dir: &Path, name: &str, pid: u32, title: &str) -> Result<Profile, ProfileError> {
        std::fs::create_dir_all(dir).map_err(ProfileError::Write)?;
        let data = dir.join(format!("{name}.perf.data"));
        let child = Command::new("perf")
            .args([
                "record",
                "-F",
                "199",
                "--call-graph",
                "dwarf,16384",
                "--quiet",
                "-o",
            ])
            .arg(&data)
            .args(["-p", &pid.to_string()])
            .stdout(Stdio::null())
            .spawn()
            .map_err(ProfileError::Start)?;
        Ok(Profile {
            child,
            data,
            title: title.to_owned(),
        })
    }

    /// Stops the recording (SIGINT, so perf writes its file) and writes
    /// `NAME.folded` and `NAME.svg` beside it; returns the SVG's path.
    pub fn finish(mut self) -> Result<PathBuf, ProfileError> {
        Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .map_err(ProfileError::Perf)?;
        self.child.wait().map_err(ProfileError::Perf)?;
        let script = Command::new("perf")
            .arg("script")
            .arg("-i")
            .arg(&self.data)
            .stderr(Stdio::null())
            .output()
            .map_err(ProfileError::Perf)?;
        let mut folded = Vec::new();
        use inferno::collapse::Collapse;
        inferno::collapse::perf::Folder::from(inferno::collapse::perf::Options::default())
            .collapse(&script.stdout[..], &mut folded)
            .map_err(ProfileError::Write)?;
        let stem = self.data.with_extension("").with_extension("");
        std::fs::write(stem.with_extension("folded"), &folded).map_err(ProfileError::Write)?;
        let svg = stem.with_extension("svg");
        let mut opts = inferno::flamegraph::Options::default();
        opts.title = format!("{}: {}", self.title, stem.display());
        let lines = std::str::from_utf8(&folded)
            .map_err(|e| ProfileError::Fold(e.to_string()))?
            .lines();
        let file = std::fs::File::create(&svg).map_err(ProfileError::Write)?;
        inferno::flamegraph::from_lines(&mut opts, lines, file)
            .map_err(|e| ProfileError::Fold(e.to_string()))?;
        let _ = std::fs::remove_file(&self.data);
        Ok(svg)
    }
}
