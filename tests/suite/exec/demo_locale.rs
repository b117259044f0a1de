//! The demo simulator answers in the interface language and follows a language switch
//! (§14.5): `deepterm exec --demo` in both locales.

use deepterm::sim::SimConfig;

use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_replies_follow_the_interface_language_and_its_switch() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.config_builder().write(env.dir.path());
    let mut cmd = env.exec_command_in("zh-CN", &cfg, "你好\n/lang en\nHello again\n");
    cmd.arg("--demo")
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path());
    let out = cmd.output().await.unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let zh = text
        .find("你好，这里是 deepterm 演示模拟器！")
        .expect(&text);
    let en = text
        .find("Hello from the deepterm demo simulator!")
        .expect(&text);
    assert!(zh < en, "Chinese first, English after /lang en: {text}");
    assert!(text.contains("你的问题是："), "{text}");
    assert!(!text[..en].contains("You asked"), "{text}");
}
