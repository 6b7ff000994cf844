//! Rebuilds the server when a migration changes: `sqlx::migrate!` embeds
//! the `migrations/` folder at compile time.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
