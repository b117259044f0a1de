//! A tmux server of the test's own (`-L socket`), one session `t` running a shell command,
//! for driving the real binary in a terminal. The server is killed on drop.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long [`Tmux::wait_for`] polls before failing.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A private tmux server.
pub struct Tmux {
    /// The `-L` socket name.
    pub socket: String,
    /// The session's `TMPDIR` (a command may name another): the guided demo's copies of
    /// its sample project and anything else a run leaves there go with the server.
    _tmp: tempfile::TempDir,
}

impl Tmux {
    /// Starts session `t`, `w`×`h`, running `sh -c cmd` on socket `socket`.
    pub fn start(socket: &str, w: u16, h: u16, cmd: &str) -> Tmux {
        let tmp = tempfile::tempdir().expect("a temporary directory for the session");
        let tmpdir = format!("TMPDIR={}", tmp.path().display());
        let tmux = Tmux {
            socket: format!("{socket}-{}", std::process::id()),
            _tmp: tmp,
        };
        let (w, h) = (w.to_string(), h.to_string());
        let out = tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-e",
            &tmpdir,
            "-d",
            "-s",
            "t",
            "-x",
            &w,
            "-y",
            &h,
            "sh",
            "-c",
            cmd,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux
    }

    /// Runs one tmux command against this server.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// The pane's text.
    pub fn capture(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Polls the pane until `pred` holds; panics with the last screen on timeout.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
        self.run(&["send-keys", "-t", "t", "Enter"]);
    }

    /// Sends one key by tmux name (`Enter`, `F2`, `C-c`).
    pub fn key(&self, key: &str) {
        self.run(&["send-keys", "-t", "t", key]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// `deepterm --demo` in `locale` on a private tmux server, `w`×`h`, with an empty config,
/// its own session directory and `HOME` / XDG directories in a fresh temporary directory
/// (kept alive by the returned guard). Returns once the composer is drawn.
pub fn start_demo(socket: &str, w: u16, h: u16, locale: &str) -> (Tmux, tempfile::TempDir) {
    start_demo_with(socket, w, h, locale, "")
}

/// [`start_demo`] with `config` as the config file's text.
pub fn start_demo_with(
    socket: &str,
    w: u16,
    h: u16,
    locale: &str,
    config_text: &str,
) -> (Tmux, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text).unwrap();
    let sessions = dir.path().join("sessions");
    // The demo's copy of its sample project goes into the test's own directory.
    std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c XDG_DATA_HOME={home}/d \
         TMPDIR={home}/tmp {bin} --demo --session-dir {sessions} --config {config} --locale {locale}; sleep 30",
        home = super::shell_quote(dir.path()),
        bin = super::shell_quote(std::path::Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        sessions = super::shell_quote(&sessions),
        config = super::shell_quote(&config),
    );
    let tmux = Tmux::start(socket, w, h, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    (tmux, dir)
}

/// The Chat pane's text as one line: the Trajectory column cut off (two panes: the
/// separator is a `│` well into the row, not a gutter at its start), each row trimmed and
/// joined with single spaces, so a phrase matches however Chat wrapped it.
pub fn chat_flat(screen: &str) -> String {
    let mut out = String::new();
    for row in screen.lines() {
        let cut = row
            .char_indices()
            .filter(|&(i, c)| c == '│' && row[..i].chars().count() >= 30)
            .map(|(i, _)| i)
            .next();
        let chat = match cut {
            Some(i) => &row[..i],
            None => row,
        };
        for word in chat.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

/// A `deepterm sim --script FILE` child process (its demo policy answers once the script
/// runs out), killed on drop.
pub struct SimProcess {
    child: std::process::Child,
    /// Its base URL.
    pub base: String,
}

impl SimProcess {
    /// Starts it and reads the base URL it prints first.
    pub fn start(script: &std::path::Path) -> SimProcess {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
            .arg("sim")
            .arg("--script")
            .arg(script)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start deepterm sim");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        SimProcess {
            child,
            base: line.trim().to_string(),
        }
    }

    /// [`SimProcess::start`] with an empty script in `dir`: every reply is the demo
    /// policy's (a key is needed, so this is not the guided demo of `--demo`).
    pub fn demo_policy(dir: &std::path::Path) -> SimProcess {
        let script = dir.join("replies.json");
        std::fs::write(&script, "[]").unwrap();
        SimProcess::start(&script)
    }

    /// A config for it (the routes of [`super::routes_config`]) written into `dir`.
    pub fn config_in(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let config = dir.join("sim.toml");
        std::fs::write(&config, super::routes_config(&self.base, "")).unwrap();
        config
    }
}

impl Drop for SimProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
