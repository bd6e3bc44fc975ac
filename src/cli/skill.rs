//! `locker skill`.

use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, Ctx};

/// Print a SKILL.md that teaches an agent to use locker from a shell
///
/// The skill (Agent Skills format: `name` and `description` front matter, then when and how to
/// use locker, every command, `--json` and the exit codes) is generated from this binary's
/// command definitions, so it always matches it. Save it as `locker/SKILL.md` in your agent's
/// skills directory, e.g. `locker skill > ~/.claude/skills/locker/SKILL.md`.
#[derive(Debug, Args)]
pub struct SkillArgs {}

pub fn run(ctx: &mut Ctx, _a: &SkillArgs) -> CmdResult {
    ctx.printer.raw(crate::skill::render().as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
