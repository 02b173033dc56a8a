#include "flexadj/model/parameter_space.hpp"

namespace flexadj::model {

ParameterSpace::ParameterSpace(const model::Model& model) {
  auto add = [&](const model::Component& component, bool constraint, int index) {
    for (std::size_t k = 0; k < component.parameters().size(); ++k) {
      names_.push_back(component.name() + "." + component.parameter_names()[k]);
      index_of_.emplace(names_.back(), static_cast<int>(names_.size()) - 1);
      locations_.push_back({constraint, index, static_cast<int>(k)});
    }
  };
  for (std::size_t i = 0; i < model.force_elements().size(); ++i) {
    force_offsets_.push_back(size());
    add(*model.force_elements()[i], false, static_cast<int>(i));
  }
  for (std::size_t i = 0; i < model.constraints().size(); ++i) {
    constraint_offsets_.push_back(size());
    add(*model.constraints()[i], true, static_cast<int>(i));
  }
  gradient_force_offsets_ = force_offsets_;
  gradient_constraint_offsets_ = constraint_offsets_;
  gradient_force_masks_.assign(force_offsets_.size(), kAllParameters);
  gradient_constraint_masks_.assign(constraint_offsets_.size(), kAllParameters);
}

void ParameterSpace::want_gradients_of(const std::vector<int>& parameters) {
  gradient_force_offsets_.assign(force_offsets_.size(), -1);
  gradient_constraint_offsets_.assign(constraint_offsets_.size(), -1);
  gradient_force_masks_.assign(force_offsets_.size(), 0);
  gradient_constraint_masks_.assign(constraint_offsets_.size(), 0);
  for (int index : parameters) {
    const Location& l = locations_.at(index);
    const ParameterMask bit = ParameterMask(1) << l.parameter;
    if (l.constraint) {
      gradient_constraint_offsets_[l.component] = constraint_offsets_[l.component];
      gradient_constraint_masks_[l.component] |= bit;
    } else {
      gradient_force_offsets_[l.component] = force_offsets_[l.component];
      gradient_force_masks_[l.component] |= bit;
    }
  }
}

int ParameterSpace::find(const std::string& name) const {
  const auto found = index_of_.find(name);
  return found == index_of_.end() ? -1 : found->second;
}

double ParameterSpace::value(const model::Model& model, int index) const {
  const Location& l = locations_.at(index);
  const model::Component& c = l.constraint ? static_cast<const model::Component&>(*model.constraints()[l.component])
                                           : *model.force_elements()[l.component];
  return c.parameters()[l.parameter];
}

void ParameterSpace::set_value(model::Model& model, int index, double value) const {
  const Location& l = locations_.at(index);
  model::Component& c = l.constraint ? static_cast<model::Component&>(*model.constraints()[l.component])
                                     : *model.force_elements()[l.component];
  c.set_parameter(l.parameter, value);
}

}  // namespace flexadj::model
