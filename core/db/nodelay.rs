//! TCP_NODELAY on the database's connections.
//!
//! sqlx 0.9.0 stopped setting it on its sockets (transact-rs/sqlx#4335). The fix,
//! transact-rs/sqlx#4336, is merged upstream but in no release yet: 0.9.0 is still the
//! newest sqlx on crates.io (checked 2026-11-28 with `cargo info sqlx-core`). This
//! module goes with the first release after 0.9.0 (0.9.1 or 0.10), whose sockets carry
//! the option themselves. Without it, a statement the client
//! writes in more than one piece waits for the server's delayed ACK before its last
//! piece leaves: about 40 ms. The create path's shared statement is such a statement as
//! soon as a batch's answers pass a few kilobytes: measured on one form with 32
//! clients, 8 text fields created 17,000 responses/s and 9 fields 4,600/s, 20 fields
//! 390/s, with both cores idle. libpq (pgbench, psql) sets the option, so the bare
//! statement never showed it.
//!
//! sqlx has no hook on its socket, so right after it connects (`after_connect`), the
//! process's TCP sockets whose peer is the database's port are found among its file
//! descriptors and given the option. Setting it twice, or on a socket of ours that
//! happens to share that peer port, is harmless: every socket the service opens wants
//! it. Linux only (`/proc/self/fd`); elsewhere nothing is done.

use std::net::SocketAddr;

/// Sets TCP_NODELAY on this process's TCP sockets connected to one of `ports` (on any
/// host: the database URL may name several); returns how many lacked it.
pub(crate) fn set_on_peers_at(ports: &[u16]) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return 0;
    };
    let mut set = 0;
    for entry in entries.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if set_if_peer(fd, ports) {
            set += 1;
        }
    }
    set
}

/// Whether `fd` is a TCP stream connected to one of `ports` that lacked TCP_NODELAY
/// (and has it now).
fn set_if_peer(fd: i32, ports: &[u16]) -> bool {
    // SAFETY: the descriptor is only borrowed for the calls below, which fail harmlessly
    // (ENOTSOCK, EBADF) if it is not a socket or was closed meanwhile; one reused by
    // another socket meanwhile is at most given TCP_NODELAY, which every socket here
    // wants.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let socket = socket2::SockRef::from(&fd);
    let stream = socket.r#type().is_ok_and(|t| t == socket2::Type::STREAM);
    let peer = socket
        .peer_addr()
        .ok()
        .and_then(|a| a.as_socket())
        .map(|a: SocketAddr| a.port());
    let ours = peer.is_some_and(|p| ports.contains(&p));
    if !stream || !ours || socket.tcp_nodelay().unwrap_or(true) {
        return false;
    }
    socket.set_tcp_nodelay(true).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_connection_to_the_port_gets_the_option_once() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("listener");
        let port = listener.local_addr().expect("address").port();
        let client = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        let (served, _) = listener.accept().await.expect("accept");
        assert!(!client.nodelay().expect("option"), "off by default");
        // The accepted side's peer is the client's port, not `port`: left alone.
        assert_eq!(set_on_peers_at(&[port]), 1);
        assert!(client.nodelay().expect("option"));
        assert!(!served.nodelay().expect("option"));
        assert_eq!(set_on_peers_at(&[1, port]), 0, "already set");
    }
}
