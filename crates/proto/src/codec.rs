//! The protobuf codec of every generated client and server: prost's, with
//! small per-stream buffers. tonic gives each stream an encode and a decode
//! buffer of 8 KiB kept for the stream's life; a Judge stream's messages
//! are a few hundred bytes, so at hundreds of tables those buffers were
//! most of the referee's memory per table. A larger message grows its
//! buffer as needed.

use std::marker::PhantomData;

use prost::Message;
use tonic::codec::{BufferSettings, Codec, ProstCodec};

/// Initial encode and decode buffer of a stream.
const BUFFER_SIZE: usize = 1024;
/// tonic's default: a streaming reply's ready messages sent together up
/// to this size.
const YIELD_THRESHOLD: usize = 32 * 1024;

/// `tonic::codec::ProstCodec` with [`BUFFER_SIZE`] buffers (named by
/// `build.rs` as every service's and client's codec).
#[derive(Debug, Clone, Copy)]
pub struct SmallBuffers<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for SmallBuffers<T, U> {
    fn default() -> Self {
        SmallBuffers(PhantomData)
    }
}

fn settings() -> BufferSettings {
    BufferSettings::new(BUFFER_SIZE, YIELD_THRESHOLD)
}

impl<T, U> Codec for SmallBuffers<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = <ProstCodec<T, U> as Codec>::Encoder;
    type Decoder = <ProstCodec<T, U> as Codec>::Decoder;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::raw_encoder(settings())
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstCodec::<T, U>::raw_decoder(settings())
    }
}
