//! Run the DeepSeek simulator standalone: `cargo run --example sim_server [-- --script FILE]`.
//! Prints the base URL as the first stdout line, then serves until Ctrl+C.

use deepterm::sim::{self, Script, SimConfig};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut cfg = SimConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--script" => {
                let path = args.next().ok_or("--script needs a file")?;
                cfg.script = Some(Script::load(path)?);
            }
            "--port" => {
                let port: u16 = args.next().ok_or("--port needs a number")?.parse()?;
                cfg.addr.set_port(port);
            }
            "--latency-ms" => {
                let ms: u64 = args.next().ok_or("--latency-ms needs a number")?.parse()?;
                cfg.latency = std::time::Duration::from_millis(ms);
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    sim::run_cli(cfg).await?;
    Ok(())
}
