//! The solver: reachable values, solutions, chains and censuses.
