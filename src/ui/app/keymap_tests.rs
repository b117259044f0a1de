//! The keymap table drives dispatch: every binding is reachable and acts, every key the App
//! reacts to is in the table, and the Ctrl+C quit window.

use super::*;

#[test]
fn every_binding_of_the_keymap_table_is_reachable_and_acts() {
    for b in BINDINGS {
        for chord in b.keys {
            let Some(k) = chord.example() else {
                // The mouse row: `on_mouse` (tested by mouse_click_toggles_…).
                assert_eq!(*chord, Chord::Mouse);
                continue;
            };
            let mut app = if let Chord::Twice(KeyCode::Esc, _) = chord {
                // Esc Esc arms on an idle, empty composer (Chat focused: the first Esc
                // also moves focus back to the composer).
                let mut app = app_in(Context::Chat);
                app.on_key(k);
                app
            } else if let Chord::Twice(..) = chord {
                // The quit window is open only after a first press while idle, on an empty
                // composer (the first Ctrl+C clears the draft).
                let mut app = app_in(Context::Composer);
                app.on_key(k);
                app.on_key(k);
                app
            } else if b.action == Action::CompleteCommand {
                // Tab completes only while the slash popup is open.
                let mut app = app_in(Context::Composer);
                app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
                for c in "/to".chars() {
                    app.on_key(key(KeyCode::Char(c)));
                }
                app
            } else if b.action == Action::Yank {
                // Ctrl+Y inserts what a kill took.
                let mut app = app_in(Context::Composer);
                app.on_key(KeyEvent::new(KeyCode::Char('k'), KeyModifiers::CONTROL));
                app
            } else {
                let mut app = app_in(b.context);
                // The help scrolls up only from below its first row.
                if b.context == Context::HelpOverlay
                    && matches!(
                        b.action,
                        Action::LineUp | Action::PageUp | Action::ScrollTop
                    )
                {
                    app.on_key(key(KeyCode::End));
                    screen_at(&mut app, 120, 30);
                }
                app
            };
            assert_eq!(
                app.resolve(&k),
                Some((b.context, b.action)),
                "{chord:?} in {:?} does not reach {:?}",
                b.context,
                b.action
            );
            let before = fingerprint(&mut app);
            app.on_key(k);
            assert_ne!(
                fingerprint(&mut app),
                before,
                "{chord:?} ({:?} in {:?}) changed nothing",
                b.action,
                b.context
            );
        }
    }
}

#[test]
fn every_key_on_key_reacts_to_is_in_the_keymap_table() {
    let mut codes = vec![
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::Insert,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::PageUp,
        KeyCode::PageDown,
    ];
    codes.extend((1..=12).map(KeyCode::F));
    codes.extend(('a'..='z').map(KeyCode::Char));
    codes.extend([' ', '/', '?'].map(KeyCode::Char));
    let mods = [
        KeyModifiers::NONE,
        KeyModifiers::CONTROL,
        KeyModifiers::ALT,
        KeyModifiers::SHIFT,
    ];
    let contexts = [
        Context::Composer,
        Context::Global,
        Context::Chat,
        Context::Trajectory,
        Context::Approval,
        Context::HelpOverlay,
        Context::InspectorOverlay,
        Context::ResumePicker,
        Context::DiffOverlay,
        Context::RewindPicker,
        Context::TranscriptOverlay,
    ];
    // The contexts are independent (each key gets a fresh App), so they run on threads of
    // their own: building an App per key is what costs.
    std::thread::scope(|s| {
        for cx in contexts {
            let codes = &codes;
            s.spawn(move || unbound_keys_change_nothing_in(cx, codes, &mods));
        }
    });
}

/// Every key of `codes` × `mods` (typed characters aside) that changes the UI in `cx` is
/// in the keymap table: pressed on an App in the state `app_in(cx)` builds.
fn unbound_keys_change_nothing_in(cx: Context, codes: &[KeyCode], mods: &[KeyModifiers]) {
    // A key the table resolves passes whatever it does, so only the others are pressed.
    // `app_in` builds the same state every time and arms no timed window (a first Esc or
    // Ctrl+C), so what the probe resolves, every fresh App resolves.
    let probe = app_in(cx);
    assert!(!probe.rewind_armed() && !probe.quit_hint_visible());
    // Building an App per key is what costs. A key that left everything
    // the fingerprint shows as it was, armed no timed window and left the key contexts
    // alone leaves the App as `app_in` built it, as far as keys can tell; the next key is
    // pressed on it. After any other key the next one gets a fresh App.
    let mut app: Option<(App, String)> = None;
    for &code in codes {
        for &m in mods {
            let k = KeyEvent::new(code, m);
            // Plain typed characters are text for the composer, not bindings.
            if crate::ui::keymap::typed(&k).is_some() || probe.resolve(&k).is_some() {
                continue;
            }
            let (mut a, before) = app.take().unwrap_or_else(|| {
                let mut a = app_in(cx);
                let before = fingerprint(&mut a);
                (a, before)
            });
            assert_eq!(a.key_contexts(), probe.key_contexts());
            let resolved = a.resolve(&k);
            a.on_key(k);
            let after = fingerprint(&mut a);
            if after != before {
                assert!(
                    resolved.is_some(),
                    "{k:?} changes the UI in {cx:?} but is not in the keymap table"
                );
                continue;
            }
            if !a.rewind_armed()
                && !a.quit_hint_visible()
                && a.key_contexts() == probe.key_contexts()
            {
                app = Some((a, after));
            }
        }
    }
}

#[test]
fn ctrl_c_quit_hint_is_transient_on_the_status_line_and_never_piles_up_in_chat() {
    let mut app = App::new(Locale::EnUs, false);
    let t0 = Instant::now();
    let cells = app.transcript().len();
    for i in 0..3u64 {
        // Three single presses, each after the last one's window closed.
        app.set_now(t0 + Duration::from_secs(10 * i));
        app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        let screen = draw(&mut app);
        assert_eq!(
            screen.matches("Press Ctrl+C again to quit.").count(),
            1,
            "{screen}"
        );
        assert!(!app.should_quit());
        assert!(app.animating(), "the loop must tick to take the hint down");
    }
    assert_eq!(app.transcript().len(), cells, "the hint is not history");
    // Once the window closes the hint is gone.
    app.set_now(t0 + Duration::from_secs(25));
    let screen = draw(&mut app);
    assert!(!screen.contains("Press Ctrl+C again to quit."), "{screen}");
    assert!(!app.animating());
}

#[test]
fn second_ctrl_c_within_3s_quits_and_after_3s_only_rearms() {
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let t0 = Instant::now();
    let mut app = App::new(Locale::EnUs, false);
    app.set_now(t0);
    app.on_key(ctrl_c);
    app.set_now(t0 + Duration::from_millis(2_900));
    app.on_key(ctrl_c);
    assert!(app.should_quit(), "a second Ctrl+C 2.9 s later quits");
    let mut app = App::new(Locale::EnUs, false);
    app.set_now(t0);
    app.on_key(ctrl_c);
    app.set_now(t0 + Duration::from_millis(3_100));
    app.on_key(ctrl_c);
    assert!(!app.should_quit(), "3.1 s later the window has closed");
}
