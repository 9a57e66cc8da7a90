//! The batches of the keyed kernels, `key` and `row` columns of `BinaryRowData` bytes, and their
//! distinct keys: each row's key found once, with Flink's hash and key group, so a kernel reads
//! and writes the state of each key once per batch however many rows it has.

use arrow::array::{Array, BinaryArray, StructArray};
use arrow::datatypes::{DataType, Field, Fields};
use hashbrown::HashTable;

use super::key_groups::{row_hash, KeyGroupLayout};
use crate::error::{NativeError, Result};

/// The struct type of a batch: `key` and `row`, both binary.
pub fn batch_type() -> DataType {
    DataType::Struct(Fields::from(vec![
        Field::new("key", DataType::Binary, false),
        Field::new("row", DataType::Binary, false),
    ]))
}

/// The `key` and `row` columns of a batch of `what`.
pub fn key_and_row_columns<'a>(batch: &'a StructArray, what: &str) -> Result<(&'a BinaryArray, &'a BinaryArray)> {
    let column = |name: &str| {
        batch
            .column_by_name(name)
            .and_then(|c| c.as_any().downcast_ref::<BinaryArray>())
            .filter(|c| c.null_count() == 0)
            .ok_or_else(|| NativeError::Internal(format!("{what} needs a non-null binary column '{name}'")))
    };
    Ok((column("key")?, column("row")?))
}

/// One distinct key of a batch.
pub struct BatchKey {
    /// The first row with this key; its `key` column holds the key's bytes.
    pub first_row: u32,
    /// Flink's hash of the key, spread over 64 bits for hash tables.
    pub hash: u64,
    pub key_group: u32,
}

/// The distinct keys of a batch in order of first appearance, and the key of every row.
pub struct BatchKeys {
    pub keys: Vec<BatchKey>,
    /// For each row, its key's index in `keys`.
    pub key_of_row: Vec<u32>,
}

/// Spreads a Java hash code over 64 bits for the hash tables.
pub fn spread(hash: i32) -> u64 {
    (hash as u32 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl BatchKeys {
    /// Finds the distinct keys of the `keys` column (`BinaryRowData` bytes), checking that this
    /// backend owns each key's key group.
    pub fn of(keys: &BinaryArray, layout: &KeyGroupLayout) -> Result<BatchKeys> {
        let mut table: HashTable<u32> = HashTable::with_capacity(keys.len());
        let mut distinct: Vec<BatchKey> = Vec::new();
        let mut key_of_row = Vec::with_capacity(keys.len());
        for i in 0..keys.len() {
            let key = keys.value(i);
            let java_hash = row_hash(key)?;
            let hash = spread(java_hash);
            let found = table.find(hash, |&k| keys.value(distinct[k as usize].first_row as usize) == key).copied();
            let index = match found {
                Some(index) => index,
                None => {
                    let index = distinct.len() as u32;
                    distinct.push(BatchKey { first_row: i as u32, hash, key_group: layout.key_group(java_hash)? });
                    table.insert_unique(hash, index, |&k| distinct[k as usize].hash);
                    index
                }
            };
            key_of_row.push(index);
        }
        Ok(BatchKeys { keys: distinct, key_of_row })
    }

    /// The bytes of key `index`.
    pub fn key<'a>(&self, keys: &'a BinaryArray, index: u32) -> &'a [u8] {
        keys.value(self.keys[index as usize].first_row as usize)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::columnar::binary_row::tests::RowBuilder;

    /// A batch of `keys` and their `rows` (`BinaryRowData` bytes), as the kernels receive it.
    pub(crate) fn batch_of_rows(keys: &[Vec<u8>], rows: &[Vec<u8>]) -> StructArray {
        let DataType::Struct(fields) = batch_type() else { unreachable!() };
        StructArray::new(
            fields,
            vec![
                Arc::new(BinaryArray::from_iter_values(keys.iter())),
                Arc::new(BinaryArray::from_iter_values(rows.iter())),
            ],
            None,
        )
    }

    #[test]
    fn rows_of_one_key_share_its_index_in_order_of_first_appearance() {
        let a = RowBuilder::new(1).long(0, 1).build();
        let b = RowBuilder::new(1).long(0, 2).build();
        let keys = BinaryArray::from_iter_values([&a, &b, &a, &a, &b]);
        let layout = KeyGroupLayout::new(1, 128, 0, 127).unwrap();
        let batch = BatchKeys::of(&keys, &layout).unwrap();
        assert_eq!(batch.key_of_row, vec![0, 1, 0, 0, 1]);
        assert_eq!(batch.keys.len(), 2);
        assert_eq!(batch.key(&keys, 1), &b[..]);
        assert_eq!(batch.keys[0].first_row, 0);
        assert_eq!(batch.keys[1].first_row, 1);
    }
}
