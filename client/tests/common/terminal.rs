//! A program in a real pseudo-terminal of its own, with a terminal emulator
//! (`vt100`) keeping the screen it draws: what a person at an 80×24
//! terminal would see and type, with nothing needed beyond the Rust
//! toolchain.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};

use super::PATIENCE;

/// What a program writes to leave the alternate screen.
const LEAVE_ALTERNATE_SCREEN: &[u8] = b"\x1b[?1049l";

/// The program runs while this lives; dropping it kills the program.
pub struct Terminal {
    /// The emulator, and a signal raised each time the program draws.
    screen: Arc<(Mutex<Screen>, Condvar)>,
    keyboard: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
}

/// What the program has written to the terminal.
struct Screen {
    emulator: vt100::Parser,
    /// Every byte, as written (to look for escape sequences).
    written: Vec<u8>,
    /// The program has exited and the terminal closed.
    closed: bool,
}

/// A key, as the terminal sends it.
#[derive(Debug, Clone, Copy)]
pub enum Key {
    Enter,
    Escape,
    Down,
}

impl Terminal {
    /// Starts `program` with `args` and `env` in an 80×24 terminal.
    pub fn start(program: impl AsRef<OsStr>, args: &[&str], env: &[(&str, &OsStr)]) -> Terminal {
        const ROWS: NonZeroU16 = NonZeroU16::new(24).unwrap();
        const COLS: NonZeroU16 = NonZeroU16::new(80).unwrap();
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS.get(),
                cols: COLS.get(),
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut command = CommandBuilder::new(program);
        command.args(args);
        command.env("TERM", "xterm-256color");
        for (key, value) in env {
            command.env(key, value);
        }
        let child = pty.slave.spawn_command(command).expect("the program");
        // The program holds the terminal's other end now.
        drop(pty.slave);
        let screen = Arc::new((
            Mutex::new(Screen {
                emulator: vt100::Parser::new(ROWS, COLS, 0),
                written: Vec::new(),
                closed: false,
            }),
            Condvar::new(),
        ));
        let mut output = pty
            .master
            .try_clone_reader()
            .expect("the terminal's output");
        let drawn = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Ends when the program has exited and the terminal closes.
            while let Ok(n @ 1..) = output.read(&mut buf) {
                let mut screen = drawn.0.lock().unwrap();
                screen.emulator.process(&buf[..n]);
                screen.written.extend_from_slice(&buf[..n]);
                drawn.1.notify_all();
            }
            drawn.0.lock().unwrap().closed = true;
            drawn.1.notify_all();
        });
        let keyboard = pty.master.take_writer().expect("the terminal's input");
        Terminal {
            screen,
            keyboard,
            child,
        }
    }

    /// Types `text` as it is.
    pub fn type_text(&mut self, text: &str) {
        self.keyboard.write_all(text.as_bytes()).unwrap();
        self.keyboard.flush().unwrap();
    }

    pub fn key(&mut self, key: Key) {
        self.type_text(match key {
            Key::Enter => "\r",
            Key::Escape => "\x1b",
            Key::Down => "\x1b[B",
        });
    }

    /// The text on the screen now, one line per row.
    pub fn screen(&self) -> String {
        self.screen.0.lock().unwrap().emulator.screen().contents()
    }

    /// Waits until the screen shows what `pred` looks for (looking again
    /// each time the program draws); returns it.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        let (emulator, drawn) = &*self.screen;
        let mut parser = emulator.lock().unwrap();
        loop {
            let screen = parser.emulator.screen().contents();
            if pred(&screen) {
                return screen;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "the screen never showed {what}; it shows:\n{screen}"
            );
            parser = drawn.wait_timeout(parser, left).unwrap().0;
        }
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("a running program")
    }

    /// Waits (at most `PATIENCE`, a guard against a hang) for the program
    /// to exit and close the terminal; whether it did.
    pub fn exited(&mut self) -> bool {
        let deadline = Instant::now() + PATIENCE;
        let (screen, drawn) = &*self.screen;
        let mut state = screen.lock().unwrap();
        while !state.closed {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = drawn.wait_timeout(state, left).unwrap().0;
        }
        drop(state);
        self.child.wait().is_ok()
    }

    /// Whether the program left the terminal as it found it: off the
    /// alternate screen (it wrote the sequence that leaves it) and with the
    /// cursor shown.
    pub fn restored(&self) -> bool {
        let state = self.screen.0.lock().unwrap();
        let left_alternate = state
            .written
            .windows(LEAVE_ALTERNATE_SCREEN.len())
            .any(|w| w == LEAVE_ALTERNATE_SCREEN);
        let screen = state.emulator.screen();
        left_alternate && !screen.alternate_screen() && !screen.hide_cursor()
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
