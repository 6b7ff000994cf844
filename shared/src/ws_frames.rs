//! WebSocket frame headers (RFC 6455 §5.2) picked out of a byte stream as it
//! passes, without buffering it: the server charges every frame a client
//! sends — control frames and empty continuation frames included, which the
//! WebSocket library answers or swallows without ever showing them as a
//! message — to that connection's budget.
//!
//! The scanner only finds where frames start and how long they say they
//! are; whether a frame is valid is the WebSocket library's to decide.

/// What a frame's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// The opcode (0 continuation, 1 text, 2 binary, 8 close, 9 ping, 10 pong).
    pub opcode: u8,
    /// Whether this is the last frame of its message.
    pub fin: bool,
    /// The payload length the header announces.
    pub payload_len: u64,
}

impl FrameHeader {
    /// Whether the opcode is a control frame's (close, ping, pong).
    pub fn is_control(&self) -> bool {
        self.opcode & 0x8 != 0
    }
}

/// Longest header: 2 bytes, an 8-byte extended length, a 4-byte mask.
const MAX_HEADER: usize = 14;

/// Where the scanner is in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading a header: `have` of its bytes are in `header`.
    Header { have: usize },
    /// Skipping a payload: `left` bytes to go.
    Payload { left: u64 },
}

/// Finds frame headers in a stream fed in pieces of any size.
#[derive(Debug, Clone)]
pub struct FrameScanner {
    state: State,
    header: [u8; MAX_HEADER],
}

impl Default for FrameScanner {
    fn default() -> Self {
        FrameScanner {
            state: State::Header { have: 0 },
            header: [0; MAX_HEADER],
        }
    }
}

impl FrameScanner {
    /// A scanner at the start of a frame.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next piece of the stream, calling `on_frame` for each header
    /// completed in it, in order. Stops early, returning `false`, when
    /// `on_frame` does.
    pub fn feed(
        &mut self,
        mut bytes: &[u8],
        mut on_frame: impl FnMut(FrameHeader) -> bool,
    ) -> bool {
        while !bytes.is_empty() {
            match self.state {
                State::Payload { left } => {
                    let skip = usize::try_from(left).unwrap_or(usize::MAX).min(bytes.len());
                    bytes = &bytes[skip..];
                    self.state = State::Payload {
                        left: left - skip as u64,
                    };
                    if left == skip as u64 {
                        self.state = State::Header { have: 0 };
                    }
                }
                State::Header { have } => {
                    let need = if have < 2 {
                        2
                    } else {
                        header_len(self.header[1])
                    };
                    let take = (need - have).min(bytes.len());
                    self.header[have..have + take].copy_from_slice(&bytes[..take]);
                    bytes = &bytes[take..];
                    let have = have + take;
                    self.state = State::Header { have };
                    if have < 2 || have < header_len(self.header[1]) {
                        continue;
                    }
                    let frame = self.parse_header();
                    self.state = match frame.payload_len {
                        0 => State::Header { have: 0 },
                        left => State::Payload { left },
                    };
                    if !on_frame(frame) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The complete header in `self.header`.
    fn parse_header(&self) -> FrameHeader {
        let h = &self.header;
        let payload_len = match h[1] & 0x7f {
            126 => u64::from(u16::from_be_bytes([h[2], h[3]])),
            127 => u64::from_be_bytes([h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9]]),
            short => u64::from(short),
        };
        FrameHeader {
            opcode: h[0] & 0x0f,
            fin: h[0] & 0x80 != 0,
            payload_len,
        }
    }
}

/// A header's length from its second byte (mask bit and length code).
fn header_len(second: u8) -> usize {
    let extended = match second & 0x7f {
        126 => 2,
        127 => 8,
        _ => 0,
    };
    let mask = if second & 0x80 != 0 { 4 } else { 0 };
    2 + extended + mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A masked client frame with `payload`.
    fn frame(opcode: u8, fin: bool, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![opcode | if fin { 0x80 } else { 0 }];
        match payload.len() {
            n if n < 126 => out.push(0x80 | n as u8),
            n if n <= 0xffff => {
                out.push(0x80 | 126);
                out.extend((n as u16).to_be_bytes());
            }
            n => {
                out.push(0x80 | 127);
                out.extend((n as u64).to_be_bytes());
            }
        }
        out.extend([1, 2, 3, 4]);
        out.extend(payload);
        out
    }

    fn scan_in_pieces(stream: &[u8], piece: usize) -> Vec<FrameHeader> {
        let mut scanner = FrameScanner::new();
        let mut seen = Vec::new();
        for chunk in stream.chunks(piece) {
            scanner.feed(chunk, |f| {
                seen.push(f);
                true
            });
        }
        seen
    }

    #[test]
    fn every_frame_is_found_however_the_stream_is_cut() {
        let mut stream = frame(9, true, b"");
        stream.extend(frame(1, false, b""));
        stream.extend(frame(0, true, b"{\"type\":\"ping\"}"));
        stream.extend(frame(2, true, &[7; 300]));
        stream.extend(frame(10, true, b"x"));
        stream.extend(frame(1, true, &[b'a'; 70_000]));
        let want = vec![
            FrameHeader {
                opcode: 9,
                fin: true,
                payload_len: 0,
            },
            FrameHeader {
                opcode: 1,
                fin: false,
                payload_len: 0,
            },
            FrameHeader {
                opcode: 0,
                fin: true,
                payload_len: 15,
            },
            FrameHeader {
                opcode: 2,
                fin: true,
                payload_len: 300,
            },
            FrameHeader {
                opcode: 10,
                fin: true,
                payload_len: 1,
            },
            FrameHeader {
                opcode: 1,
                fin: true,
                payload_len: 70_000,
            },
        ];
        for piece in [1, 2, 3, 7, 14, 1000, stream.len()] {
            assert_eq!(scan_in_pieces(&stream, piece), want, "pieces of {piece}");
        }
        assert!(want[0].is_control() && want[4].is_control() && !want[1].is_control());
    }

    #[test]
    fn the_callback_can_stop_the_scan() {
        let stream: Vec<u8> = (0..5).flat_map(|_| frame(9, true, b"")).collect();
        let mut scanner = FrameScanner::new();
        let mut seen = 0;
        assert!(!scanner.feed(&stream, |_| {
            seen += 1;
            seen < 3
        }));
        assert_eq!(seen, 3);
    }

    #[test]
    fn an_announced_length_larger_than_memory_is_skipped_without_panic() {
        let mut stream = vec![0x82, 127];
        stream.extend(u64::MAX.to_be_bytes());
        stream.extend([0; 100]);
        let seen = scan_in_pieces(&stream, 3);
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].payload_len, u64::MAX);
    }
}
