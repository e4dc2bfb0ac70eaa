//! The arena's token file (docs/config.md): read when it exists, otherwise
//! made once with fresh tokens and kept, so the URLs the arena prints (an
//! OBS source, the chief judge's link) stay valid across restarts.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use mafia_access::{GamePattern, Role, TokenEntry, TokenFile};

/// The tokens in `path`, or new ones written there. New files hold a chief
/// judge, a broadcast token, the judge of table 1 of every tournament and
/// an organiser of every tournament: the demo's tournament is new each run,
/// so no pattern names it. Returns the file and whether it was made now.
pub fn load_or_create(
    path: &Path,
    rng: &mut impl rand::RngCore,
) -> anyhow::Result<(TokenFile, bool)> {
    if path.exists() {
        let file =
            TokenFile::from_path(path).with_context(|| format!("reading {}", path.display()))?;
        for role in [Role::ChiefJudge, Role::Broadcast, Role::Organiser] {
            anyhow::ensure!(
                file.token_of(role).is_some(),
                "{} has no {role:?} token (the arena needs a chief judge, a broadcast and an organiser token)",
                path.display()
            );
        }
        return Ok((file, false));
    }
    let table_1: GamePattern = "*.*.*.t1.*".parse()?;
    let mut file = TokenFile::demo(rng, table_1);
    file.tokens.push(TokenEntry::new(
        Role::Organiser,
        mafia_access::random_token(rng),
        vec![],
    ));
    write(path, &file)?;
    Ok((file, true))
}

/// One entry a line, `role` before `token` (deploy/run.sh reads them back
/// with sed); readable by its owner only, written whole or not at all.
fn write(path: &Path, file: &TokenFile) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let lines: Vec<String> = file
        .tokens
        .iter()
        .map(|t| serde_json::to_string(t).map(|l| format!("  {l}")))
        .collect::<Result<_, _>>()?;
    let text = format!("{{\"tokens\": [\n{}\n]}}\n", lines.join(",\n"));
    let tmp = path.with_extension("json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options
        .open(&tmp)
        .with_context(|| format!("writing {}", tmp.display()))?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_token_file_made_once_is_read_back_unchanged_on_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data/tokens.json");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let (made, created) = load_or_create(&path, &mut rng).unwrap();
        assert!(created);
        let (again, created) = load_or_create(&path, &mut rng).unwrap();
        assert!(!created);
        assert_eq!(again, made);
        // Every service reads it as its token file.
        mafia_access::Tokens::new(&again).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "the token file is readable by others");
        }
    }

    #[test]
    fn a_token_file_without_an_organiser_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        let text = r#"{"tokens": [{"role": "chief_judge", "token": "chief-token-1"}, {"role": "broadcast", "token": "broadcast-token-1"}]}"#;
        std::fs::write(&path, text).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let err = load_or_create(&path, &mut rng).unwrap_err();
        assert!(format!("{err:#}").contains("Organiser"), "{err:#}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}
