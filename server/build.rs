//! Rebuilds the server when a migration changes: `sqlx::migrate!` embeds
//! the `migrations/<backend>/` folders at compile time.

fn main() {
    println!("cargo:rerun-if-changed=../migrations/sqlite");
    println!("cargo:rerun-if-changed=../migrations/postgres");
}
