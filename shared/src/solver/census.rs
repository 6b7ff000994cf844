//! Whole-variant censuses (work in progress).
