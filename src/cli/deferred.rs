//! [`Deferred`]: a command's arguments built only when clap parses that command.
//!
//! clap's derive builds the whole command tree (every command, every argument, every help
//! text) before it parses one word, so one `locker append` paid for building `serve`,
//! `quest` and the rest, and for dropping them: a quarter of the CPU time of `locker
//! --version`, a tenth of a whole CLI append. Each top-level command's arguments and
//! subcommands are wrapped in [`Deferred`]. The tree [`lazily`] builds hands clap a function
//! for each of them instead ([`clap::Command::defer`]), which clap runs for the one command it
//! descends into. That tree parses every valid command line as the whole tree does; what it
//! would print is not the same (a deferred command's arguments come after the global ones,
//! which moves the help's sections, and its list of commands lacks their descriptions), so a
//! command line it refuses, and every `--help`, is parsed again with the whole tree
//! (`cli::parse`). Every other caller ([`clap::CommandFactory::command`]: completions, man
//! pages, the skill) gets the whole tree, built as before.
//!
//! Of the top-level commands, the lazy tree holds only those the command line names
//! ([`Named`]): clap copies every global argument (`--json`, `-R`, the log options) into every
//! command of a level when it builds that level, and for thirty commands that was 300 copies
//! and a third of a megabyte of heap, whose pages each fault in (15 of the 455 page faults of
//! a `locker append`). A command is kept when a word of the line is its name or one of its aliases,
//! so the words clap takes for a command are the same as in the whole tree, and a line whose
//! command is not kept is refused and parsed again whole.
//!
//! A command with an argument of its own that has a global argument's name (`log --scope`)
//! is not wrapped: the whole tree gives it only its own, a deferred one would get both (clap
//! adds the global ones to a command before its deferred part), which clap's debug checks
//! refuse (`cli::tests::the_lazy_tree_builds_only_the_command_it_parses` builds the lazy tree
//! whole, so a new one fails there).

use std::cell::{Cell, RefCell};
use std::ffi::OsStr;

use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};

thread_local! {
    /// Whether [`Deferred`] defers (only inside [`lazily`]).
    static LAZY: Cell<bool> = const { Cell::new(false) };
    /// The words of the command line [`lazily`] builds a tree for ([`Named`] keeps the
    /// commands they name).
    static WORDS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// `build()`'s command tree for parsing `args`: each [`Deferred`] part left to be built when
/// clap parses its command, and of the commands under a [`Named`] only those a word of `args`
/// names.
pub fn lazily<S: AsRef<OsStr>>(build: impl FnOnce() -> Command, args: &[S]) -> Command {
    let words = args.iter().filter_map(|a| a.as_ref().to_str()).map(str::to_owned).collect();
    WORDS.with(|w| *w.borrow_mut() = words);
    LAZY.with(|l| l.set(true));
    let cmd = build();
    LAZY.with(|l| l.set(false));
    WORDS.with(|w| w.borrow_mut().clear());
    cmd
}

/// `build` applied to `cmd` when clap builds it (inside [`lazily`]), or at once.
fn deferred(cmd: Command, build: fn(Command) -> Command) -> Command {
    if LAZY.with(Cell::get) {
        cmd.defer(build)
    } else {
        build(cmd)
    }
}

/// `T`'s arguments (when `T: Args`) or subcommands (when `T: Subcommand`), added to their
/// command when clap builds it (inside [`lazily`]) or at once (elsewhere).
#[derive(Debug, Clone)]
pub struct Deferred<T>(pub T);

impl<T: FromArgMatches> FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Self)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Self)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

impl<T: Args> Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }

    fn augment_args(cmd: Command) -> Command {
        deferred(cmd, T::augment_args)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        deferred(cmd, T::augment_args_for_update)
    }
}

impl<T: Subcommand> Subcommand for Deferred<T> {
    fn augment_subcommands(cmd: Command) -> Command {
        deferred(cmd, T::augment_subcommands)
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        deferred(cmd, T::augment_subcommands_for_update)
    }

    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

/// The subcommands `T` adds, of which the tree [`lazily`] builds has only those its command
/// line names; every other caller gets them all.
#[derive(Debug, Clone)]
pub struct Named<T>(pub T);

impl<T: FromArgMatches> FromArgMatches for Named<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Self)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Self)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

/// `cmd` with those of `all`'s subcommands that one of `words` names (its name or an alias).
fn named(cmd: Command, all: &Command, words: &[String]) -> Command {
    let named = |sc: &&Command| {
        words.iter().any(|w| sc.get_name() == w || sc.get_all_aliases().any(|a| a == w))
    };
    all.get_subcommands().filter(named).fold(cmd, |cmd, sc| cmd.subcommand(sc.clone()))
}

impl<T: Subcommand> Subcommand for Named<T> {
    fn augment_subcommands(cmd: Command) -> Command {
        if !LAZY.with(Cell::get) {
            return T::augment_subcommands(cmd);
        }
        // Built apart (their arguments deferred, no global ones to copy), then the named ones
        // moved over.
        let all = T::augment_subcommands(Command::new("all"));
        WORDS.with(|w| named(cmd, &all, &w.borrow()))
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        if !LAZY.with(Cell::get) {
            return T::augment_subcommands_for_update(cmd);
        }
        let all = T::augment_subcommands_for_update(Command::new("all"));
        WORDS.with(|w| named(cmd, &all, &w.borrow()))
    }

    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}
