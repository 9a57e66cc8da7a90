//! Where each call's accumulator lives: the fields of Flink's accumulator row (`accState`), and
//! the number slots the kernels compute on, which the fields hold (an extreme's nested row holds
//! two, a DISTINCT view none).

use super::functions::{AggregateCall, NumberType};
use super::value_rows::AccumulatorField;
use super::GroupAggConfig;
use crate::error::{NativeError, Result};

pub struct AccumulatorLayout {
    /// The accumulator row's fields: the calls' in order, then one per DISTINCT view.
    pub fields: Vec<AccumulatorField>,
    /// Where each call's slots start.
    starts: Vec<usize>,
    /// The slots' types.
    pub types: Vec<NumberType>,
    pub value_types: Vec<NumberType>,
    /// The slot of Flink's row count (`RecordCounter`), if the input retracts.
    pub count_star_slot: Option<usize>,
}

impl AccumulatorLayout {
    /// The layout of `config`'s calls followed by `distinct_views` views.
    pub fn of(config: &GroupAggConfig, distinct_views: usize) -> Result<AccumulatorLayout> {
        let mut starts = Vec::with_capacity(config.calls.len());
        let mut fields = Vec::new();
        let mut slots = 0;
        for call in &config.calls {
            for position in call.argument.map(|(position, _)| position).into_iter().chain(call.filter) {
                if position >= config.input_arity {
                    return Err(NativeError::InvalidArgument(format!(
                        "aggregate field {position} of rows of {} fields",
                        config.input_arity
                    )));
                }
            }
            starts.push(slots);
            let call_fields = call.accumulator_fields()?;
            slots += call_fields.iter().map(|f| f.slot_types().len()).sum::<usize>();
            fields.extend(call_fields);
        }
        fields.extend(std::iter::repeat_n(AccumulatorField::View, distinct_views));
        let types: Vec<NumberType> = fields.iter().flat_map(AccumulatorField::slot_types).collect();
        if let Some(start) = config.merged_from {
            if fields.iter().any(|f| !matches!(f, AccumulatorField::Number(_))) {
                return Err(NativeError::InvalidArgument(
                    "accumulators with element tables cannot be merged from a local aggregation".into(),
                ));
            }
            if start + fields.len() != config.input_arity {
                return Err(NativeError::InvalidArgument(format!(
                    "{} accumulator fields from field {start} of rows of {} fields",
                    fields.len(),
                    config.input_arity
                )));
            }
        }
        if config.value_arity > config.calls.len() {
            return Err(NativeError::InvalidArgument(format!(
                "{} values of {} calls",
                config.value_arity,
                config.calls.len()
            )));
        }
        let count_star_slot = match config.count_star_field {
            Some(field) if fields.get(field) == Some(&AccumulatorField::Number(NumberType::BigInt)) => {
                Some(fields[..field].iter().map(|f| f.slot_types().len()).sum())
            }
            Some(field) => {
                return Err(NativeError::InvalidArgument(format!("accumulator field {field} is no row count")))
            }
            None => None,
        };
        let value_types =
            config.calls[..config.value_arity].iter().map(AggregateCall::value_type).collect::<Result<_>>()?;
        Ok(AccumulatorLayout { fields, starts, types, value_types, count_star_slot })
    }

    /// The slots of `call` in the accumulator slots `acc`, and their types.
    pub fn fields<'a>(
        &self,
        call: usize,
        acc: &'a mut [Option<super::Number>],
    ) -> (&'a mut [Option<super::Number>], &[NumberType]) {
        let end = self.end(call);
        (&mut acc[self.starts[call]..end], &self.types[self.starts[call]..end])
    }

    /// The slots of `call` in `acc`.
    pub fn range<'a>(&self, call: usize, acc: &'a [Option<super::Number>]) -> &'a [Option<super::Number>] {
        &acc[self.starts[call]..self.end(call)]
    }

    fn end(&self, call: usize) -> usize {
        self.starts.get(call + 1).copied().unwrap_or(self.types.len())
    }
}
