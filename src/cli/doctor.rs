//! `locker doctor`.

use std::process::ExitCode;

use clap::Args;

use super::{CmdResult, Ctx};

/// Check the repository and its surroundings, and say what to do about each finding
#[derive(Debug, Args)]
pub struct DoctorArgs {}

pub fn run(_ctx: &mut Ctx, _a: &DoctorArgs) -> CmdResult {
    Ok(ExitCode::SUCCESS)
}
