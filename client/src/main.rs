//! The `krypto` command line.

fn main() {
    let deal = krypto_core::cards::Deal::random();
    println!("{} : {:?}", deal.objective, deal.hand);
}
